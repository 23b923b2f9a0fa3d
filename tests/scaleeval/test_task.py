"""ScaleEval with scripted speakers: consensus, flips, the human-review queue, order
randomisation, the meta-evaluation statistics, and the bare task name."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from inspect_arenahard.cli import main
from inspect_arenahard.scaleeval.debate import parse_number
from inspect_arenahard.scaleeval.judge_agreement import (
    agreement_rows,
    by_scenario,
    overall,
    summary,
)
from inspect_arenahard.scaleeval.task import scaleeval
from tests.helpers.inspect_cli import inspect_eval_cli
from tests.helpers.scripted import scripted_model
from tests.helpers.shared_data import shared

_SUBMISSIONS = re.compile(
    r"\[Submission 1\]: (.*?)\n\n\[Submission 2\]: (.*?)\n\n\[Criteria\]: (.*?)\n\n", re.S
)
SPEAKER = "Always remember you are Speaker"
EXTRA = [f"Q-EXTRA-{k}" for k in range(12)]


@pytest.mark.parametrize(
    "text, want",
    [
        (
            "Submission 2 covers the criteria better.\n2\n2",
            "2",
        ),  # the number repeated on the last line
        (
            "Reasoning.\n\nAnswer: 1\n\nI hope this evaluation helps.",
            "1",
        ),  # text after a named verdict
        ("Reasoning.\nFinal answer: **0**", "0"),
        ("Submission 1 is clearly better than submission 2.", None),  # numbers inside sentences
        (
            "Reasoning.\nAnswer: 1\nOn reflection:\nVerdict: 2\nNot sure.",
            None,
        ),  # two named verdicts
        (
            "Reasoning.\n\n1\n\nI hope this evaluation helps.",
            None,
        ),  # a bare digit must end the reply
        # a bare digit quoted from a submission (a list item) before the judge's own named verdict
        ("Submission 2 lists:\n2\nbut misses the point.\nFinal verdict: 1\nThat is all.", "1"),
        ("Submission 2 prints:\n0\nwhich is right.\n**Answer: 2**", "2"),
        ("", None),
    ],
)
def test_verdict_parsing_of_messy_outputs(text: str, want: str | None) -> None:
    assert parse_number(text) == want


def write_items(path: Path) -> None:
    rows = [
        ("unanimous", "Q-UNANIMOUS", "GOOD u", "BAD u", 1),
        ("flip", "Q-FLIP", "BAD f", "GOOD f", 2),
        ("split", "Q-SPLIT", "GOOD s", "BAD s", 1),
        *((q.lower(), q, f"BAD {k}", f"GOOD {k}", 2) for k, q in enumerate(EXTRA)),
    ]
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "question": q,
                    "submission_1": a,
                    "submission_2": b,
                    "label": lab,
                    "scenario": "scripted",
                }
            )
            + "\n"
            for i, q, a, b, lab in rows
        )
    )


def shown(messages: list[ChatMessage]) -> tuple[str, str, str, bool]:
    """(question, number of the GOOD submission as presented, criteria text, discussion round?)."""
    user = next(m for m in messages if m.role == "user").text
    first, _, criteria = _SUBMISSIONS.search(user).groups()  # type: ignore[union-attr]
    question = re.search(r"\[Question\]: (.*?)\n", user).group(1)  # type: ignore[union-attr]
    return (
        question,
        "1" if first.startswith("GOOD") else "2",
        criteria,
        messages[0].text.startswith(SPEAKER),
    )


def speaker(seat: int, calls: list[tuple[int, str, bool]]):  # type: ignore[no-untyped-def]
    """Seats 1 and 2 always pick GOOD. Seat 3 picks BAD on Q-FLIP until it has read the others,
    and says 0 on Q-SPLIT whatever they say."""

    def reply(messages: list[ChatMessage]) -> str:
        question, good, _, discussing = shown(messages)
        calls.append((seat, question, discussing))
        verdict = good
        if seat == 3 and question == "Q-FLIP" and not discussing:
            verdict = "1" if good == "2" else "2"
        if seat == 3 and question == "Q-SPLIT":
            verdict = "0"
        return f"Step by step for {question}: my reasoning.\n{verdict}\n{verdict}"

    return scripted_model(f"speaker{seat}", reply)


def evaluator(messages: list[ChatMessage]) -> str:
    """Right under the general rubric, undecided under gibberish."""
    _, good, criteria, _ = shown(messages)
    return f"Reasons.\n{good if 'Not Helpful' in criteria else '0'}"


@pytest.fixture(scope="module")
def debate_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("scaleeval")
    data = root / "items.jsonl"
    write_items(data)
    calls: list[tuple[int, str, bool]] = []
    task = scaleeval(
        data=str(data),
        criteria_variant="general,gibberish",
        max_rounds=3,
        consistency_samples=2,
        cache=False,
    )
    [log] = eval(
        task,
        model=None,
        model_roles={
            "debaters": [speaker(k, calls) for k in (1, 2, 3)],
            "evaluator": scripted_model("judge", evaluator),
        },
        display="none",
        log_dir=str(root / "logs"),
    )
    assert log.status == "success", log.error
    return log, calls, root


def records(log: EvalLog) -> dict[str, dict]:  # type: ignore[type-arg]
    return {str(s.id): s.scores["scaleeval_debate"].metadata for s in log.samples or []}


def test_unanimous_start_makes_no_discussion_calls(debate_run) -> None:  # type: ignore[no-untyped-def]
    log, calls, _ = debate_run
    assert Counter((s, d) for s, q, d in calls if q == "Q-UNANIMOUS") == {
        (1, False): 1,
        (2, False): 1,
        (3, False): 1,
    }
    record = records(log)["unanimous"]["debate"]
    assert record["consensus"] and record["rounds_run"] == 1 and record["label"] == "1"


def test_a_speaker_flips_after_reading_the_others(debate_run) -> None:  # type: ignore[no-untyped-def]
    log, calls, _ = debate_run
    assert sorted(c for c in calls if c[1] == "Q-FLIP") == sorted(
        [(s, "Q-FLIP", False) for s in (1, 2, 3)] + [(s, "Q-FLIP", True) for s in (1, 2, 3)]
    )
    debate = records(log)["flip"]["debate"]
    assert debate["consensus"] and debate["rounds_run"] == 2 and debate["label"] == "2"
    assert debate["initial"] == ["2", "2", "1"] and debate["final"] == ["2", "2", "2"]
    assert debate["majority_initial"] == "2"
    assert [t["judge"] for t in debate["rounds"][1]] == [
        "mockllm/speaker1",
        "mockllm/speaker2",
        "mockllm/speaker3",
    ]


def test_persistent_split_goes_to_the_human_queue(debate_run) -> None:  # type: ignore[no-untyped-def]
    log, calls, _ = debate_run
    assert len([c for c in calls if c[1] == "Q-SPLIT"]) == 9  # three rounds of three speakers
    sample = next(s for s in log.samples or [] if s.id == "split")
    score = sample.scores["scaleeval_debate"]
    assert score.value == 0.0 and score.answer == "human review"
    debate = score.metadata["debate"]
    assert not debate["consensus"] and debate["rounds_run"] == 3 and debate["label"] is None
    assert debate["final"] == ["1", "1", "0"] and debate["majority_final"] == "1"


def test_discussion_prompt_carries_every_evaluation(debate_run) -> None:  # type: ignore[no-untyped-def]
    log, _, _ = debate_run
    sample = next(s for s in log.samples or [] if s.id == "split")
    rounds = sample.scores["scaleeval_debate"].metadata["debate"]["rounds"]
    assert all(
        t["reasoning"].startswith("Step by step for Q-SPLIT") for turns in rounds for t in turns
    )
    assert "#### round 2 (discussion)" in sample.scores["scaleeval_debate"].explanation


def test_order_is_seeded_recorded_and_mapped_back(debate_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log, _, root = debate_run
    found = records(log)
    orders = Counter(r["order"] for r in found.values())
    assert set(orders) == {"12", "21"}  # both orders occur among 15 items
    for item_id, record in found.items():
        if record["debate"]["consensus"]:
            assert record["debate"]["label"] == record["gold"], item_id
    again = scaleeval(data=str(root / "items.jsonl"))
    assert {str(s.id): s.metadata["order"] for s in again.dataset} == {
        k: r["order"] for k, r in found.items()
    }
    other = scaleeval(data=str(root / "items.jsonl"), seed=1)
    assert {str(s.id): s.metadata["order"] for s in other.dataset} != {
        k: r["order"] for k, r in found.items()
    }
    flipped = next(s for s in again.dataset if s.metadata["order"] == "21")
    assert flipped.metadata["submission_1"].startswith("GOOD") == (flipped.metadata["gold"] == "2")


def test_evaluator_baselines_and_variants(debate_run) -> None:  # type: ignore[no-untyped-def]
    log, _, _ = debate_run
    assert "inspect_arenahard/evaluator_verdicts" in [step.solver for step in log.plan.steps]
    evaluation = records(log)["flip"]["evaluator"]
    assert evaluation["model"] == "mockllm/judge"
    assert evaluation["variants"]["general"] == {
        "single": "2",
        "samples": ["2", "2"],
        "consistency": "2",
    }
    assert evaluation["variants"]["gibberish"]["single"] == "0"
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}  # type: ignore[union-attr]
    assert metrics["consensus_rate"] == pytest.approx(14 / 15)
    assert metrics["pending_review"] == 1
    assert metrics["evaluator_vs_debate"] == 1.0 and metrics["self_consistency_vs_debate"] == 1.0
    assert metrics["evaluator[gibberish]_vs_debate"] == 0.0
    assert metrics["majority_vs_gold"] == 1.0 and metrics["debate_vs_gold"] == 1.0
    assert metrics["speaker3_vs_gold"] == pytest.approx(13 / 15)


def test_human_review_export_and_import_recomputes_the_tables(
    debate_run, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    _, _, root = debate_run
    queue = tmp_path / "review.csv"
    assert main(["metaeval", str(root / "logs"), "--human-review", str(queue)]) == 0
    out = capsys.readouterr().out
    assert "15 items from 1 logs: 14 debate consensus, 0 human decisions, 1 pending review" in out
    [row] = list(csv.DictReader(queue.open()))
    assert row["key"] == "split|helpfulness" and row["decision"] == ""
    assert "[Speaker 3 (mockllm/speaker3) · round 2 → 0]" in row["debate"]
    good_as_shown = "1" if row["submission_1"].startswith("GOOD") else "2"
    assert row["majority"] == good_as_shown

    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        writer.writeheader()
        writer.writerow({**row, "decision": "3"})
    assert main(["metaeval", str(root / "logs"), "--apply-review", str(bad)]) == 2
    assert "bad.csv: row 2: decision '3' must be 1, 2 or 0" in capsys.readouterr().err

    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        writer.writeheader()
        writer.writerow({**row, "decision": good_as_shown})
    report_json = tmp_path / "metaeval.json"
    assert (
        main(
            [
                "metaeval",
                str(root / "logs"),
                "--apply-review",
                str(filled),
                "--json",
                str(report_json),
            ]
        )
        == 0
    )
    assert "14 debate consensus, 1 human decisions, 0 pending review" in capsys.readouterr().out
    result = json.loads(report_json.read_text())
    [debate_gold] = [
        r for r in result["tables"]["gold_overall"] if r["judge"] == "ScaleEval debate"
    ]
    assert debate_gold["n"] == 15 and debate_gold["example"] == 1.0
    by_variant = {(r["group"], r["judge"]): r for r in result["tables"]["debate_by_variant"]}
    assert by_variant[("general", "evaluator mockllm/judge")]["n"] == 15
    assert by_variant[("gibberish", "evaluator mockllm/judge")]["example"] == 0.0


# ---------------------------------------------------------------- statistics


def record(
    item: str,
    scenario: str,
    gold: str | None,
    debate: str | None,
    speakers: list[str | None],
    single: str | None,
) -> dict:  # type: ignore[type-arg]
    return {
        "item_id": item, "source": "hand", "scenario": scenario, "criterion": "helpfulness", "gold": gold,
        "debate": {"consensus": debate is not None, "label": debate, "speakers": ["a", "b", "c"], "initial": speakers,
                   "majority_initial": Counter(s for s in speakers if s).most_common(1)[0][0]},
        "evaluator": {"model": "e", "variants": {"general": {"single": single, "samples": [], "consistency": None}}},
    }  # fmt: skip


HAND = [
    record("1", "coding", "1", "1", ["1", "1", "2"], "1"),
    record("2", "coding", "2", "2", ["2", "1", "2"], "1"),
    record("3", "coding", "1", "1", ["1", "1", "1"], None),
    record("4", "writing", "2", "2", ["2", "2", "0"], "2"),
    record("5", "writing", "1", None, ["1", "1", "0"], "2"),  # no consensus, no decision: pending
    record("6", "writing", "0", "2", ["2", "2", "2"], "2"),
]


def test_agreement_tables_match_a_hand_computation() -> None:
    rows = {(r.group, r.judge): r for r in agreement_rows(HAND, "debate", by_scenario)}
    # evaluator vs debate: coding 1 of 3 (item 3 unparsed counts as a miss), writing 2 of 2
    coding, writing = rows[("coding", "evaluator e")], rows[("writing", "evaluator e")]
    assert (coding.n, coding.unparsed, coding.example) == (3, 1, pytest.approx(1 / 3))
    assert (writing.n, writing.example) == (2, 1.0)
    # modes: coding evaluator {1: 2} vs debate {1: 2, 2: 1} → equal; writing {2} vs {2} → equal
    assert coding.system == 1.0 and writing.system == 1.0
    speaker_c = rows[("coding", "speaker3 c")]
    assert (
        speaker_c.example == pytest.approx(2 / 3) and speaker_c.system == 0.0
    )  # modes (1, 2) tie vs 1
    gold = {r.judge: r for r in agreement_rows(HAND, "gold", overall)}
    assert gold["ScaleEval debate"].n == 5 and gold["ScaleEval debate"].example == pytest.approx(
        4 / 5
    )
    # majorities 1, 2, 1, 2, 1, 2 against gold 1, 2, 1, 2, 1, 0
    assert gold["multi-judge majority"].n == 6 and gold[
        "multi-judge majority"
    ].example == pytest.approx(5 / 6)
    assert gold["multi-judge majority"].system == 0.0  # modes (1, 2) tie vs 1
    numbers = summary(HAND)
    assert numbers["consensus_rate"] == pytest.approx(5 / 6) and numbers["pending_review"] == 1
    assert numbers["evaluator_vs_debate"] == pytest.approx(3 / 5)
    assert numbers["evaluator_vs_gold"] == pytest.approx(
        2 / 6
    )  # 1, 1, -, 2, 2, 2 vs 1, 2, 1, 2, 1, 0


# ---------------------------------------------------------------- bare task name


@pytest.mark.shared_data
def test_bare_scaleeval_resolves_from_any_directory(tmp_path: Path) -> None:
    args = [
        "scaleeval", "-T", f"data={shared('meta_eval', 'llmbar', 'LLMBar_Natural.json')}",
        "--model-role", "debaters=mockllm/model,mockllm/model", "--limit", "1",
    ]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    assert log.status == "success" and log.eval.task.split("/")[-1] == "scaleeval"
    [sample] = log.samples or []
    record = sample.scores["scaleeval_debate"].metadata
    assert record["evaluator"] is None and record["debate"]["speakers"] == [
        "mockllm/model",
        "mockllm/model#2",
    ]


def test_task_file_and_registry() -> None:
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_lookup

    ensure_entry_points()
    assert registry_lookup("task", "scaleeval") is not None
    assert registry_lookup("task", "inspect_arenahard/scaleeval") is not None
    assert registry_lookup("scorer", "inspect_arenahard/scaleeval_debate") is not None
    assert registry_lookup("metric", "inspect_arenahard/committee_agreement") is not None
    with pytest.raises(ValueError, match="scaleeval needs -T data="):
        scaleeval()
