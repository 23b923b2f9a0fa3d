"""Live baseline and reference roles: answers generated in the same run and shown to the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval

from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

SEEN: list[str] = []


def _judge():  # type: ignore[no-untyped-def]
    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        SEEN.append(messages[1].text)
        _, answer_a, _ = judged(messages)
        return (
            "[[A>B]]" if answer_a.startswith("LIVE-BASELINE") else "[[B>A]]"
        )  # always prefers the baseline

    return scripted_model("judge", reply)


def _dataset(tmp_path: Path) -> Path:
    rows = [{"id": f"q{i}", "prompt": f"What is {i} + {i}?", "category": "math"} for i in range(3)]
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_live_baseline_role_answers_every_prompt(tmp_path: Path) -> None:
    SEEN.clear()
    baseline = scripted_model("base", lambda m: f"LIVE-BASELINE says {m[-1].text}")
    [log] = eval(
        "inspect_arenahard/arenahard",
        task_args={"version": "custom", "dataset": str(_dataset(tmp_path)), "canaries": 0},
        model=scripted_model("candidate", lambda m: "candidate answer"),
        model_roles={"judge": _judge(), "baseline": baseline},
        display="none",
    )
    assert log.status == "success", log.error
    assert [step.solver for step in log.plan.steps] == [
        "inspect_arenahard/canary_answer",
        "inspect_arenahard/answer_with_baseline",
    ]
    for sample in log.samples or []:
        assert sample.metadata["baseline_answer"] == f"LIVE-BASELINE says {sample.input}"
        assert sample.metadata["baseline_model"] == "mockllm/base"
        score = sample.scores["pairwise_judge"]  # type: ignore[index]
        assert score.value == 0.0 and score.metadata["baseline"] == "mockllm/base"
    assert len(SEEN) == 6 and all("Reference Answer" not in s for s in SEEN)


@pytest.mark.shared_data
def test_reference_answers_from_a_file_are_shown_to_judges(tmp_path: Path) -> None:
    """MT-Bench style grading with the real GPT-4 reference answers of MT-Bench."""
    SEEN.clear()
    mt = shared("prompt_pools", "mt_bench")
    refs = {
        json.loads(line)["question_id"]: json.loads(line)
        for line in (mt / "reference_answer_gpt-4.jsonl").open()
    }
    rows = [json.loads(line) for line in (mt / "question.jsonl").open()]
    rows = [
        {"id": str(r["question_id"]), "prompt": r["turns"][0], "category": r["category"]}
        for r in rows
        if r["question_id"] in refs
    ][:2]
    data = tmp_path / "bench.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    ref_file = tmp_path / "refs.jsonl"
    ref_file.write_text(
        "\n".join(json.dumps({**refs[int(r["id"])], "question_id": r["id"]}) for r in rows),
        encoding="utf-8",
    )
    [log] = eval(
        "inspect_arenahard/arenahard",
        task_args={
            "version": "custom",
            "dataset": str(data),
            "reference": str(ref_file),
            "canaries": 0,
        },
        model=scripted_model("candidate", lambda m: "candidate answer"),
        model_roles={
            "judge": _judge(),
            "baseline": scripted_model("base", lambda m: "LIVE-BASELINE answer"),
        },
        display="none",
    )
    assert log.status == "success", log.error
    assert len(SEEN) == 4
    for text in SEEN:
        assert "<|The Start of Reference Answer|>" in text
    expected = refs[int(rows[0]["id"])]["choices"][0]["turns"][0]
    assert any(expected in text for text in SEEN)


def test_live_reference_role(tmp_path: Path) -> None:
    SEEN.clear()
    [log] = eval(
        "inspect_arenahard/arenahard",
        task_args={"version": "custom", "dataset": str(_dataset(tmp_path)), "canaries": 0},
        model=scripted_model("candidate", lambda m: "candidate answer"),
        model_roles={
            "judge": _judge(),
            "baseline": scripted_model("base", lambda m: "LIVE-BASELINE answer"),
            "reference": scripted_model("oracle", lambda m: "REFERENCE: the sum is even"),
        },
        display="none",
    )
    assert log.status == "success", log.error
    assert all("REFERENCE: the sum is even" in s for s in SEEN) and len(SEEN) == 6
