"""Per-category means in the eval log header (Inspect's grouped metrics), so `inspect view` tells
hard prompts and creative writing apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

from inspect_arenahard import arenahard
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

V2 = shared("arena-hard-v2.0")
HARD = ["2edbb5f36f5b42be"]
CREATIVE = ["d657b1fb82b141da", "0a055d8b33ca49b1"]


def test_header_has_the_mean_per_category(tmp_path: Path) -> None:
    def judge(messages) -> str:  # type: ignore[no-untyped-def]
        question, answer_a, _ = judged(messages)
        mine, other = ("A", "B") if answer_a.startswith("MINE") else ("B", "A")
        winner, loser = (
            (mine, other) if "zig program" in question else (other, mine)
        )  # the one hard prompt
        return f"[[{winner}>{loser}]]"

    [log] = eval(
        arenahard(version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31"),
        model=scripted_model("catmodel", lambda m: "MINE " + m[-1].text[:30]),
        model_roles={"judge": scripted_model("catjudge", judge)},
        sample_id=HARD + CREATIVE,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    [score] = log.results.scores  # type: ignore[union-attr]
    metrics = {name: m.value for name, m in score.metrics.items()}
    # the model wins the hard prompt (the zig one) and loses both creative-writing prompts
    assert metrics["hard_prompt"] == 1.0 and metrics["creative_writing"] == 0.0
    assert metrics["mean"] == 1 / 3


def test_one_category_adds_no_metric() -> None:
    task = arenahard(data_dir=str(shared("arena-hard-v0.1")))
    assert task.metrics is None  # the scorer's own mean and stderr


def test_v2_header_equals_the_leaderboard_under_the_pair_rule(tmp_path: Path) -> None:
    """A v2.0 run where the judge writes no verdict for some games: the header's headline drops
    both games of such a judgment (v2.0's official pair rule), as the leaderboard does."""
    import json

    from inspect_arenahard.cli import main
    from inspect_arenahard.evaluate.scorers import headline_score

    def judge(messages) -> str:  # type: ignore[no-untyped-def]
        question, answer_a, _ = judged(messages)
        mine, other = ("A", "B") if answer_a.startswith("MINE") else ("B", "A")
        if "zig program" in question:
            return f"[[{mine}>>{other}]]"  # two strong wins
        if "thuggish rap" in question:
            return f"[[{other}>{mine}]]"  # two weak losses
        if mine == "A":
            return "no verdict in this reply"  # the poem's game 2 stays unparsed
        return f"[[{mine}>{other}]]"

    [log] = eval(
        arenahard(version="v2.0", data_dir=str(V2), baseline="o3-mini-2025-01-31"),
        model=scripted_model("pairmodel", lambda m: "MINE " + m[-1].text[:30]),
        model_roles={"judge": scripted_model("pairjudge", judge)},
        sample_id=HARD + CREATIVE,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    [score] = log.results.scores  # type: ignore[union-attr]
    header = score.metrics["games_vs_baseline"].value
    # the pair rule drops both games of the poem: strong wins 6 of 6 + 2 losses = 75%; dropping
    # only the unparsed game would count the poem's weak win too: 7 of 9
    metadata = [(s.id, s.scores["pairwise_judge"].metadata) for s in log.samples or []]  # type: ignore[index]
    assert header == pytest.approx(75.0)
    assert headline_score(metadata, "game") == pytest.approx(700 / 9)
    out = tmp_path / "lb.json"
    args = [
        "leaderboard",
        str(tmp_path / "logs"),
        "--no-audit",
        "--rounds",
        "5",
        "--json",
        str(out),
    ]
    assert main(args) == 0
    rows = [r for r in json.loads(out.read_text()) if r["model"] == "mockllm/pairmodel"]
    assert rows and rows[0]["score"] == pytest.approx(header, abs=0.05)
