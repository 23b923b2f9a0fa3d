"""The log reader: fast summaries equal Inspect's typed reader; runs deduplicated and reported."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import read_eval_log_sample_summaries

from inspect_arenahard import arenahard
from inspect_arenahard.logs.reader import raw_summaries, read_games
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

V01 = str(shared("arena-hard-v0.1"))


def _judge():  # type: ignore[no-untyped-def]
    return scripted_model(
        "judge", lambda m: "[[A>B]]" if judged(m)[1].startswith("model answer") else "[[B>A]]"
    )


def _candidate(fail_on: str | None = None, name: str = "candidate"):  # type: ignore[no-untyped-def]
    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        if fail_on is not None and messages[-1].text == fail_on:
            raise RuntimeError("provider exploded")
        return "model answer"

    return scripted_model(name, reply)


def test_fast_summaries_equal_inspects_reader(tmp_path: Path) -> None:
    [log] = eval(
        arenahard(data_dir=V01),
        model=_candidate(),
        model_roles={"judge": _judge()},
        limit=3,
        log_dir=str(tmp_path),
        display="none",
    )
    ours = {
        (s["id"], s["epoch"]): s["scores"]["pairwise_judge"]["metadata"]
        for s in raw_summaries(log.location)
    }
    theirs = {
        (s.id, s.epoch): s.scores["pairwise_judge"].metadata
        for s in read_eval_log_sample_summaries(log.location)
    }  # type: ignore[index]
    assert ours == theirs and len(ours) == 3


def test_reruns_replace_games_partial_runs_reported_other_tasks_ignored(tmp_path: Path) -> None:
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    logs = str(tmp_path)
    first_prompt = next(iter(arenahard(data_dir=V01).dataset)).input
    [complete] = eval(
        arenahard(data_dir=V01),
        model=_candidate(),
        model_roles={"judge": _judge()},
        limit=2,
        log_dir=logs,
        display="none",
    )
    # the same model again with one sample failing: its one scored sample replaces that sample's
    # two games of the complete run; the failed one keeps the complete run's games
    [rerun] = eval(
        arenahard(data_dir=V01), model=_candidate(fail_on=first_prompt), model_roles={"judge": _judge()},
        limit=2, log_dir=logs, display="none", fail_on_error=False,
    )  # fmt: skip
    # another model whose only run is partial: its scored samples count, and it is reported
    [partial] = eval(
        arenahard(data_dir=V01), model=_candidate(fail_on=first_prompt, name="other"), model_roles={"judge": _judge()},
        limit=2, log_dir=logs, display="none", fail_on_error=False,
    )  # fmt: skip
    # a different task in the same folder is ignored, not mixed in
    eval(
        Task(dataset=[Sample(input="hi", target="hi")]),
        model=_candidate(),
        log_dir=logs,
        display="none",
    )

    result = read_games([logs])
    runs = {r.path: r for r in result.runs}
    assert set(runs) == {complete.location, rerun.location, partial.location}
    assert (runs[complete.location].games, runs[complete.location].replaced) == (4, 2)
    assert (runs[rerun.location].samples, runs[rerun.location].failed_samples) == (1, 1)
    assert (
        runs[partial.location].samples,
        runs[partial.location].failed_samples,
        runs[partial.location].games,
    ) == (1, 1, 2)
    notes = "\n".join(result.notes())
    assert notes.count("partial run") == 2 and "1 failed or unscored samples" in notes
    assert f"replaced: 2 games of {complete.location} re-judged in newer {rerun.location}" in notes
    assert notes.count("ignored") == 1
    assert (
        sorted(g["model"] for g in result.games)
        == ["mockllm/candidate"] * 4 + ["mockllm/other"] * 2
    )
    assert sorted(g["log"] for g in result.games if g["model"] == "mockllm/candidate") == sorted(
        [complete.location] * 2 + [rerun.location] * 2
    )
    assert all(
        g["label"] == "A>B" if g["model_position"] == "A" else g["label"] == "B>A"
        for g in result.games
    )
    assert result.counts() == {"read": 6, "replaced": 2, "unparsed": 0, "damaged": 0, "skipped": 1}
