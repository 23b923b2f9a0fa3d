"""Drift caught through real runs: a judge whose behaviour changes under one name (answer-hash
preference → longer-answer preference) is refused by the leaderboard, pooled and labelled with
--pool-settings and shown by ``arenahard judges --drift``; the same judge in two runs pools."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.evaluate.canaries import canary_pairs
from tests.helpers.judge_runs import prompt_ids, v01
from tests.helpers.scripted import judged, scripted_model

pytestmark = pytest.mark.shared_data


def prefers(key: Callable[[str], object]) -> Callable[[object], str]:
    """A judge preferring, in either position, the answer with the larger ``key``."""

    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        _, a, b = judged(messages)
        return "[[A>B]]" if key(a) > key(b) else "[[B>A]]"

    return reply


def hash_rank(text: str) -> int:
    """Higher for a smaller MD5: the hash judge prefers the answer whose digest sorts first."""
    return -int(hashlib.md5(text.encode()).hexdigest(), 16)


def judge_run(log_dir: Path, reply: Callable[[object], str], prompts: list[str]) -> EvalLog:
    candidate = scripted_model("candidate", lambda m: "Answer: " + m[-1].text[:60])
    [log] = eval(
        arenahard(data_dir=v01()),
        model=candidate,
        model_roles={"judge": scripted_model("judge", reply)},
        sample_id=prompts + [pair.sample_id for pair in canary_pairs()],
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def leaderboard(capsys: pytest.CaptureFixture[str], logs: Path, *args: str) -> tuple[int, str, str]:
    code = main(["leaderboard", str(logs), "--no-audit", "--rounds", "5", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_judge_that_changed_between_runs_is_refused_and_an_unchanged_one_pools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = prompt_ids(4)
    # how often the two preferences disagree on the canaries (the answers reach the judge as
    # written: neutralising leaves these texts unchanged); both positions move on each such pair
    moved = sum(
        (hash_rank(p.model_answer) > hash_rank(p.baseline_answer))
        != (len(p.model_answer) > len(p.baseline_answer))
        for p in canary_pairs()
    )
    assert moved >= 8  # enough to be caught at 1% (2·2⁻⁸ < 0.01)

    drifting = tmp_path / "drifting"
    first = judge_run(drifting, prefers(hash_rank), ids[:2])
    second = judge_run(drifting, prefers(len), ids[2:])
    code, _, err = leaderboard(capsys, drifting)
    assert code == 2
    [line] = [ln for ln in err.splitlines() if "error:" in ln]
    assert f"{second.location} against {first.location}" in line
    assert f"({2 * moved} of 32 canary games disagree" in line

    code, out, _ = leaderboard(
        capsys, drifting, "--pool-settings", "--json", str(tmp_path / "lb.json")
    )
    assert code == 0 and "canary drift of judge mockllm/judge" in out
    rows = json.loads((tmp_path / "lb.json").read_text())
    assert all(any("canary drift" in p for p in row["pooled_settings"]) for row in rows)

    assert main(["judges", "--drift", str(drifting)]) == 0
    out = capsys.readouterr().out
    assert "Canary agreement" in out and "DRIFT" in out and first.location in out

    steady = tmp_path / "steady"
    judge_run(steady, prefers(len), ids[:2])
    judge_run(steady, prefers(len), ids[2:])
    code, out, err = leaderboard(capsys, steady)
    assert code == 0 and "canary drift" not in out + err
    assert "64 canary games (never ranked)" in err
