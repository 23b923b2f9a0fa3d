"""Canary games: judged in every run from the shipped pairs, never cached, never ranked, costed."""

from __future__ import annotations

import math
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_arenahard import arenahard
from inspect_arenahard.evaluate.canaries import canary_pairs
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.report.costs import format_costs, log_costs
from tests.helpers.judge_runs import prompt_ids, v01
from tests.helpers.scripted import CallCounter, judged, scripted_model

PROMPTS = prompt_ids(2)


def longer_wins(messages) -> str:  # type: ignore[no-untyped-def]
    _, a, b = judged(messages)
    return "[[A>B]]" if len(a) >= len(b) else "[[B>A]]"


def canary_run(
    log_dir: Path, judge_calls: CallCounter, model_calls: CallCounter, **task_args: object
) -> EvalLog:
    candidate = scripted_model("candidate", lambda m: "Answer: " + m[-1].text[:60], model_calls)
    judge = scripted_model("canary-judge", longer_wins, judge_calls)
    ids = PROMPTS + [pair.sample_id for pair in canary_pairs()]
    [log] = eval(
        arenahard(data_dir=v01(), **task_args),  # type: ignore[arg-type]
        model=candidate,
        model_roles={"judge": judge},
        sample_id=ids,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_canaries_are_judged_uncached_unranked_and_costed(tmp_path: Path) -> None:
    judge_calls, model_calls = CallCounter(), CallCounter()
    runs = tmp_path / "runs"
    first = canary_run(runs, judge_calls, model_calls)
    assert len(canary_pairs()) == 16
    assert model_calls.count == 2  # the model under test answers the prompts, no canary
    assert judge_calls.count == 2 * (2 + 16)
    canaries = [s for s in first.samples or [] if str(s.id).startswith("canary-")]
    assert len(canaries) == 16
    for sample in canaries:
        score = sample.scores["pairwise_judge"]  # type: ignore[index]
        assert math.isnan(float(score.value))  # type: ignore[arg-type]  # unscored: no metric counts it
        assert score.metadata["canary"] is True and len(score.metadata["games"]) == 2
        assert score.metadata["model"] == "gpt-4o-2024-05-13"

    # a re-run with the cache on: prompt games are replayed, every canary game is asked again
    judge_calls.count = 0
    canary_run(runs, judge_calls, model_calls)
    assert judge_calls.count == 2 * 16

    result = read_games([str(runs)])
    assert {g["model"] for g in result.games} == {"mockllm/candidate"}
    assert len(result.games) == 2 * 2  # the re-run replaced the first run's prompt games
    assert len(result.canaries) == 2 * 2 * 16  # each run keeps its own canary games
    assert [run.canary_games for run in result.runs] == [32, 32]
    assert "64 canary games (never ranked)" in result.summary()
    # the headline metric is the two prompts' games alone
    without = canary_run(tmp_path / "off", CallCounter(), CallCounter(), canaries=0)
    metric = first.results.scores[0].metrics["games_vs_baseline"].value  # type: ignore[union-attr]
    assert metric == without.results.scores[0].metrics["games_vs_baseline"].value  # type: ignore[union-attr]
    assert not any(str(s.id).startswith("canary-") for s in without.samples or [])

    costs = log_costs([str(runs)])
    roles = costs.by_role()
    # the re-run replaced every prompt game of the first run: only its usage counts
    assert roles["judge (canaries)"].calls == 2 * 16
    assert roles["judge"].calls == 0 and roles["judge"].cached_calls == 4
    assert "judge (canaries)" in format_costs(costs)


def test_runs_without_canaries_are_named_when_others_have_them() -> None:
    """A run cut by ``--limit`` (or imported, or ``-T canaries=0``) judged no canary: pooled
    beside runs that did, its drift cannot be checked, and the notes say which runs those are."""
    from inspect_arenahard.logs.reader import LogGames, Run

    def run(path: str, canaries: int) -> Run:
        return Run(path, "arenahard", "m", "success", "", samples=4, games=8, canary_games=canaries)

    mixed = LogGames(runs=[run("full.eval", 32), run("limited.eval", 0)])
    [note] = [n for n in mixed.notes() if "drift not checked" in n]
    assert note.startswith("canary drift not checked for 1 of 2 runs") and "limited.eval" in note
    assert "full.eval" not in note
    for runs in ([run("a.eval", 32), run("b.eval", 32)], [run("a.eval", 0), run("b.eval", 0)]):
        assert not [n for n in LogGames(runs=runs).notes() if "drift not checked" in n]
