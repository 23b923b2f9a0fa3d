"""Per-category means in the eval log header (Inspect's grouped metrics), so `inspect view` tells
hard prompts and creative writing apart."""

from __future__ import annotations

from pathlib import Path

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
