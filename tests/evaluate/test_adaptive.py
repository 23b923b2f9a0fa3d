"""Adaptive judging end to end with scripted models: the run stops, skipped samples make no
calls, counts are exact, eval-retry leaves skipped samples alone, the leaderboard and the cost
table report the stopped run; the stratified order keeps v2.0's mix."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import EvalLog

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate import adaptive
from inspect_arenahard.evaluate.adaptive import SKIPPED, VISIT, StoppingRule, replay
from inspect_arenahard.logs.reader import read_games
from tests.helpers.scripted import CallCounter, judged, scripted_model
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")
V2 = shared("arena-hard-v2.0")
MARK = "CANDIDATE::"


def judge_reply(model_wins: bool):  # type: ignore[no-untyped-def]
    """A judge that always prefers the model (or always the baseline), strongly."""

    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        _, answer_a, _ = judged(messages)
        model_is_a = answer_a.startswith(MARK)
        return "[[A>>B]]" if model_is_a == model_wins else "[[B>>A]]"

    return reply


def tie_judge(messages) -> str:  # type: ignore[no-untyped-def]
    """Every game a tie: the model is exactly at 50, so a reference at 50 is never decided."""
    return "[[A=B]]"


def run(name: str, judge, limit: int, max_samples: int = 4, **task_args):  # type: ignore[no-untyped-def]
    model_calls, judge_calls = CallCounter(), CallCounter()
    model = scripted_model(name, lambda m: f"{MARK} {m[-1].text[:20]}", model_calls)
    [log] = eval(
        arenahard(data_dir=str(V01), **task_args),
        model=model,
        model_roles={"judge": scripted_model(f"{name}-judge", judge, judge_calls)},
        limit=limit,
        display="none",
        max_samples=max_samples,
    )
    assert log.status == "success", log.error
    return log, model_calls.count, judge_calls.count


def split(log: EvalLog) -> tuple[list, list]:  # type: ignore[type-arg]
    """(judged samples, skipped samples); failed samples (no score) are in neither."""
    samples = [s for s in log.samples or [] if s.scores]
    skipped = [s for s in samples if SKIPPED in (s.scores["pairwise_judge"].metadata or {})]
    return [s for s in samples if s not in skipped], skipped


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {
        name: m.value
        for name, m in log.results.scores[0].metrics.items()
        if m.group == "anytime_interval"
    }


def ledger(log: EvalLog) -> dict[str, object]:
    """The skip counts in the log header (``results.early_stopping``)."""
    assert log.results is not None and log.results.early_stopping is not None
    assert log.results.early_stopping.manager == "arenahard_adaptive"
    assert log.results.early_stopping.early_stops == []  # the solver skips, Inspect runs them all
    assert log.eval.eval_id not in adaptive._RUNS  # the run's controller went with it
    return dict(log.results.early_stopping.metadata)


def test_a_clearly_worse_model_stops_early_and_skipped_samples_make_no_calls() -> None:
    log, model_calls, judge_calls = run(
        "worse", judge_reply(model_wins=False), 120, stop_when="decided", versus="ref:50"
    )
    # the adaptive_answer solver answers the prompts the run still needs and marks the rest
    # skipped (canary_answer before it answers canaries only)
    assert [step.solver for step in log.plan.steps] == [
        "inspect_arenahard/canary_answer",
        "inspect_arenahard/adaptive_answer",
    ]
    done, skipped = split(log)
    assert len(done) + len(skipped) == 120
    assert len(done) < 30  # a model losing every game is below 50 within a couple dozen prompts
    # exactly one answer and two judge calls per judged sample; none for a skipped one
    assert model_calls == len(done) and judge_calls == 2 * len(done)
    for sample in skipped:
        assert not [e for e in sample.events if e.event == "model"]
        score = sample.scores["pairwise_judge"]
        assert score.metadata[SKIPPED].startswith("stop_when=decided: below ref (50) after ")
        assert not score.metadata.get("games")
    # the rule fired on the visit-order prefix; the samples in flight then finished and count
    header = metrics(log)
    assert header["judged"] == len(done)
    assert header["stopped_at"] <= len(done) <= header["stopped_at"] + 4  # max_samples=4
    assert header["upper"] < 50 and header["lower"] == 0
    # every skipped sample comes after every judged one in the visit order
    assert max(s.metadata[VISIT] for s in done) < min(s.metadata[VISIT] for s in skipped)
    assert log.eval.metadata["adaptive"]["versus"] == {"ref": 50.0}
    # the header counts skipped samples exactly (metrics cannot: Inspect hands them scored ones),
    # and Inspect's own count of unscored samples holds them too (every judged game parsed here)
    reasons = Counter(s.scores["pairwise_judge"].metadata[SKIPPED] for s in skipped)
    assert log.results.scores[0].unscored_samples == len(skipped)  # type: ignore[union-attr]
    assert ledger(log) == {
        "samples": 120,
        "answered": len(done),
        "skipped": len(skipped),
        "skipped_by_reason": dict(reasons),
        "canaries": 0,  # --limit 120 keeps the dataset's first samples: no canary
    }


def test_the_header_replays_what_the_run_decided() -> None:
    log, *_ = run("replayed", judge_reply(model_wins=True), 80, stop_at_ci=20)
    done, skipped = split(log)
    rule = StoppingRule(stop_at_ci=20)
    points = [(s.metadata[VISIT], s.scores["pairwise_judge"].value) for s in done]
    again = replay(rule, points)
    assert again.stopped_at == metrics(log)["stopped_at"]
    assert skipped and all("stop_at_ci=20: half-width" in s.scores["pairwise_judge"].metadata[SKIPPED] for s in skipped)  # fmt: skip
    assert (again.upper - again.lower) * 50 <= 20


def test_a_close_model_runs_to_max_prompts() -> None:
    log, model_calls, judge_calls = run(
        "close", tie_judge, 60, stop_when="decided", versus="ref:50", max_prompts=40
    )
    done, skipped = split(log)
    assert len(done) == 40 and model_calls == 40 and judge_calls == 80
    assert len(skipped) == 20
    assert {s.scores["pairwise_judge"].metadata[SKIPPED] for s in skipped} == {"max_prompts=40"}
    header = metrics(log)
    assert header["judged"] == 40 and header["stopped_at"] == 0  # never fired
    assert header["lower"] < 50 < header["upper"]
    notes = read_games([Path(log.location).parent]).notes()
    [note] = [n for n in notes if "adaptive" in n]
    assert "stopped at max_prompts, 40 judged samples, 20 skipped" in note


def test_stratified_order_keeps_the_category_mix_in_every_prefix() -> None:
    task = arenahard(
        version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31", max_prompts=100
    )
    everything = list(task.dataset)
    # the canary pairs follow the visit order, outside it (adaptive stopping never skips them)
    samples, canaries = everything[:750], everything[750:]
    assert len(canaries) == 16 and not any(VISIT in (c.metadata or {}) for c in canaries)
    assert [s.metadata[VISIT] for s in samples] == list(range(750))
    share = {"hard_prompt": 500 / 750, "creative_writing": 250 / 750}
    counts: Counter[str] = Counter()
    for n, sample in enumerate(samples, start=1):
        counts[sample.metadata["category"]] += 1
        for category, p in share.items():
            assert abs(counts[category] - p * n) <= 1, (n, counts)
    # seeded: the same seed gives the same order, another seed another one
    again = arenahard(version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31", max_prompts=100, canaries=0)  # fmt: skip
    other = arenahard(version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31", max_prompts=100, canaries=0, prompt_seed=1)  # fmt: skip
    assert [s.id for s in again.dataset] == [s.id for s in samples]
    assert [s.id for s in other.dataset] != [s.id for s in samples]
    # a fixed run keeps the file's order
    plain = arenahard(version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31", canaries=0)
    assert VISIT not in (list(plain.dataset)[0].metadata or {})


def test_eval_retry_reruns_the_failed_sample_and_not_the_skipped_ones() -> None:
    task = arenahard(data_dir=str(V01), stop_when="decided", versus="ref:50")
    first = list(task.dataset)[0].input

    def answer(messages) -> str:  # type: ignore[no-untyped-def]
        if messages[-1].text == first:
            raise RuntimeError("provider down")
        return f"{MARK} answer"

    [log] = eval(
        task,
        model=scripted_model("flaky", answer),
        model_roles={"judge": scripted_model("flaky-judge", judge_reply(model_wins=False))},
        limit=60,
        display="none",
        max_samples=1,
        fail_on_error=False,
    )
    failed = [s.id for s in log.samples or [] if s.error]
    done, skipped = split(log)
    assert len(failed) == 1 and len(skipped) > 30
    [retried] = eval_retry(log, display="none")
    before = {s.id: s.uuid for s in log.samples or []}
    rerun = [s.id for s in retried.samples or [] if s.uuid != before[s.id]]
    assert rerun == failed
    assert len(split(retried)[1]) == len(skipped)
    # reused samples are counted too: the retried header has the same skip count, and the
    # sample that failed (in neither count the first time) is now answered
    assert ledger(log)["skipped"] == ledger(retried)["skipped"] == len(skipped)
    assert ledger(log)["answered"] == len(done) and ledger(retried)["answered"] == len(done) + 1


def test_leaderboard_ranks_the_stopped_run_with_its_anytime_interval_and_costs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, *_ = run("ranked", judge_reply(model_wins=False), 80, stop_when="decided", versus="ref:50")
    done, skipped = split(log)
    logs = Path(log.location).parent
    result = read_games([logs])
    [stopped] = result.runs
    assert (stopped.samples, stopped.skipped_samples, stopped.failed_samples) == (
        len(done),
        len(skipped),
        0,
    )
    assert len(result.games) == 2 * len(done)  # skipped samples are neither games nor unparsed
    # the header alone (what a header-only reader sees) has the same count
    assert stopped.adaptive is not None and stopped.adaptive["skipped"] == len(skipped)
    assert any("anytime-valid 95% interval" in note and f"{len(skipped)} skipped" in note for note in result.notes())  # fmt: skip
    out_json = tmp_path / "lb.json"
    prices = tmp_path / "prices.yaml"
    prices.write_text("mockllm/ranked: {input: 1000, output: 1000}\nmockllm/ranked-judge: {input: 1000, output: 1000}\n")  # fmt: skip
    code = main(["leaderboard", str(logs), "--no-audit", "--rounds", "20", "--json", str(out_json), "--cost", "--prices", str(prices)])  # fmt: skip
    assert code == 0
    out = capsys.readouterr()
    assert "anytime-valid CI" in out.out and f"({len(skipped)} skipped)" in out.out
    records = {r["model"]: r for r in json.loads(out_json.read_text())}
    row = records["mockllm/ranked"]
    assert row["adaptive_skipped"] == len(skipped) and row["anytime_upper"] < 50
    # each judged sample made 2 judge calls of 15 tokens at $1000/M: the skipped ones would have
    assert row["saved_judge_calls"] == 2 * len(skipped)
    assert row["saved_cost"] == pytest.approx(len(skipped) * 3 * 15 * 1000 / 1e6)
    assert f"adaptive judging skipped {len(skipped)} samples: about {2 * len(skipped)} judge calls" in out.out  # fmt: skip


def test_a_stopped_run_and_a_later_full_run_pool_game_by_game(tmp_path: Path) -> None:
    stopped, *_ = run("pooled", judge_reply(model_wins=False), 60, stop_when="decided", versus="ref:50")  # fmt: skip
    done, skipped = split(stopped)
    # later, the same model judged on the first 40 prompts without a rule
    full, *_ = run("pooled", judge_reply(model_wins=False), 40)
    result = read_games([Path(stopped.location).parent])
    prompts = {str(s.id) for s in done} | {str(s.id) for s in full.samples or []}
    # every game of a prompt judged by either run counts once; the newer run's judgment wins
    assert len(result.games) == 2 * len(prompts)
    overlap = {str(s.id) for s in done} & {str(s.id) for s in full.samples or []}
    assert overlap and result.counts()["replaced"] == 2 * len(overlap)
    assert len({(g["question_id"], g["game"]) for g in result.games}) == len(result.games)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"stop_when": "decided"}, "needs -T versus="),
        ({"versus": "gpt-4o:61"}, "add -T stop_when=decided"),
        ({"stop_when": "decided", "versus": "gpt-4o"}, "expected name:score"),
        ({"stop_when": "decided", "versus": "gpt-4o:161"}, "0–100 points"),
        ({"stop_at_ci": 0}, "stop_at_ci"),
        ({"stop_when": "sometimes"}, "stop_when"),
        ({"max_prompts": "many"}, "max_prompts"),
        ({"stop_at_ci": 2, "stop_alpha": 0.9}, "stop_alpha"),
    ],
)
def test_bad_stopping_arguments_are_one_clear_error(args: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message):
        arenahard(data_dir=str(V01), **args)


def test_versus_names_may_contain_colons() -> None:
    task = arenahard(data_dir=str(V01), stop_when="decided", versus="openai/gpt-4o:2024:61.5,b:40")
    assert task.metadata["adaptive"]["versus"] == {"openai/gpt-4o:2024": 61.5, "b": 40.0}


def test_versus_as_inspect_parses_it_from_the_command_line() -> None:
    from inspect_ai._util.config import parse_cli_args

    args = parse_cli_args(["stop_when=decided", "versus=gpt-4o:61.2,o3-mini:50", "stop_at_ci=2.5"])
    task = arenahard(data_dir=str(V01), **args)
    assert task.metadata["adaptive"]["versus"] == {"gpt-4o": 61.2, "o3-mini": 50.0}
    assert task.metadata["adaptive"]["stop_at_ci"] == 2.5


def test_judge_batch_sends_judge_calls_and_only_them_through_batch_mode() -> None:
    [log] = eval(
        arenahard(data_dir=str(V01), judge_batch=True, cache=False),
        model=scripted_model("batched", lambda m: f"{MARK} answer"),
        model_roles={"judge": scripted_model("batched-judge", tie_judge)},
        limit=2,
        display="none",
    )
    assert log.status == "success", log.error
    calls = [(e.role, e.config.batch) for s in log.samples or [] for e in s.events if e.event == "model"]  # fmt: skip
    assert Counter(calls) == {(None, None): 2, ("judge", True): 4}


def test_canaries_are_counted_apart_from_answered_prompts() -> None:
    """Canary samples are judged beside an adaptive run's prompts, but the model under test never
    answers them: the header's ``answered`` counts prompts only, canaries have their own count."""
    from inspect_arenahard.evaluate.canaries import canary_pairs

    model_calls, judge_calls = CallCounter(), CallCounter()
    prompts = [str(s.id) for s in arenahard(data_dir=str(V01), canaries=0).dataset][:6]
    canaries = [pair.sample_id for pair in canary_pairs()[:2]]
    [log] = eval(
        arenahard(data_dir=str(V01), canaries=2, max_prompts=500),
        model=scripted_model("canary-adaptive", lambda m: f"{MARK} {m[-1].text[:20]}", model_calls),
        model_roles={"judge": scripted_model("canary-adaptive-judge", tie_judge, judge_calls)},
        sample_id=prompts + canaries,
        display="none",
    )
    assert log.status == "success", log.error
    assert model_calls.count == 6 and judge_calls.count == 2 * (6 + 2)
    counts = ledger(log)
    assert counts["answered"] == 6 and counts["skipped"] == 0 and counts["canaries"] == 2
