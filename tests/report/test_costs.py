"""Cost per role from the logs' model events: live calls, cached replays, recorded and priced costs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelCost, ModelInfo, set_model_info

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.report.costs import log_costs, price_for, read_prices
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")
N = 3
JUDGE_PRICE = ModelCost(input=1.0, output=2.0, input_cache_write=0.0, input_cache_read=0.0)


@pytest.fixture
def priced_judge():  # type: ignore[no-untyped-def]
    """Inspect knows the judge's price (so it records a cost per call); the answerers it does not."""
    from inspect_ai.model._model_info import _custom_models

    set_model_info("mockllm/costjudge", ModelInfo(cost=JUDGE_PRICE))
    yield
    _custom_models.pop("mockllm/costjudge", None)


def judge_reply(messages) -> str:  # type: ignore[no-untyped-def]
    _, answer_a, _ = judged(messages)
    return "[[A>B]]" if answer_a.startswith("MINE") else "[[B>A]]"


def run(model: str, log_dir: Path) -> EvalLog:
    [log] = eval(
        arenahard(data_dir=str(V01)),
        model=scripted_model(model, lambda m: f"MINE {model}: " + m[-1].text[:40]),
        model_roles={"judge": scripted_model("costjudge", judge_reply)},
        limit=N,
        display="none",
        log_dir=str(log_dir),
    )
    assert log.status == "success", log.error
    return log


def test_cost_per_role_counts_cached_calls_apart(tmp_path: Path, priced_judge: None) -> None:
    logs = tmp_path / "logs"
    first = run("cand1", logs)
    rerun = run(
        "cand1", logs
    )  # same model and arguments: supersedes the first; its judge calls replay the cache
    other = run("cand2", logs)
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "mockllm/cand1: {input: 100, output: 1000}\nmockllm/cand2: [200, 2000]\n", encoding="utf-8"
    )

    report = log_costs([logs], read_prices(prices))
    per_model = report.per_model()
    one, two = per_model["mockllm/cand1"], per_model["mockllm/cand2"]
    # the kept run of cand1: N answers, all 2N judge games replayed from the cache (free)
    assert (one["model"].calls, one["model"].cached_calls) == (N, 0)
    assert (one["judge"].calls, one["judge"].cached_calls, one["judge"].cost) == (0, 2 * N, 0.0)
    assert one["model"].cost == pytest.approx(N * (10 * 100 + 5 * 1000) / 1e6)
    # cand2: live judge calls, cost as Inspect recorded it in the log header
    assert two["judge"].calls == 2 * N and two["judge"].recorded_cost_calls == 2 * N
    assert two["judge"].cost == pytest.approx(other.stats.role_usage["judge"].total_cost)
    assert two["judge"].input_tokens == other.stats.role_usage["judge"].input_tokens
    assert two["model"].cost == pytest.approx(N * (10 * 200 + 5 * 2000) / 1e6)
    # the superseded first run is reported apart, with what it spent
    assert [r.path for r in report.superseded] == [first.location]
    assert report.summary()["superseded_runs"]["calls"] == 3 * N
    assert rerun.location in [r.path for r in report.runs]

    out = tmp_path / "lb"
    code = main(["leaderboard", str(logs), "--cost", "--prices", str(prices), "--rounds", "5",
                 "--json", f"{out}.json", "--csv", f"{out}.csv"])  # fmt: skip
    assert code == 0
    records = {r["model"]: r for r in json.loads(Path(f"{out}.json").read_text())}
    assert records["mockllm/cand2"]["judge_calls"] == 2 * N
    assert records["mockllm/cand1"]["judge_cached_calls"] == 2 * N
    expected = other.stats.role_usage["judge"].total_cost + N * (10 * 200 + 5 * 2000) / 1e6
    assert records["mockllm/cand2"]["cost"] == pytest.approx(expected, abs=1e-6)
    assert "cost" not in records["gpt-4-0314"]  # stored baseline answers cost nothing in these runs
    with open(f"{out}.csv", newline="") as handle:
        rows = {r["model"]: r for r in csv.DictReader(handle)}
    assert float(rows["mockllm/cand2"]["cost"]) == pytest.approx(expected, abs=1e-6)
    assert rows["gpt-4-0314"]["cost"] == ""


def test_unpriced_calls_are_not_free(
    tmp_path: Path, priced_judge: None, capsys: pytest.CaptureFixture[str]
) -> None:
    run("cand3", tmp_path / "logs")
    report = log_costs([tmp_path / "logs"])
    usage = report.per_model()["mockllm/cand3"]["model"]
    assert usage.calls == N and usage.unpriced_calls == N and usage.known_cost is None
    assert main(["leaderboard", str(tmp_path / "logs"), "--cost", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert f"{N} calls have no recorded cost and no price (mockllm/cand3)" in out
    assert "≥$" in out  # the judge's recorded cost is a lower bound of the run's cost


def test_price_table(tmp_path: Path) -> None:
    assert price_for(
        "openai/gpt-4o-mini-2024-07-18", {"gpt-4o": (1, 2), "gpt-4o-mini": (3, 4)}
    ) == (3, 4)
    bad = tmp_path / "p.yaml"
    bad.write_text("gpt-x: {input: 1}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"p.yaml: gpt-x: expected"):
        read_prices(bad)
