"""Auto-Arena peer battles and the examiner with scripted models: turn order, what each side
and the judges see, length limits, A/B sides, references, and the logs' game records."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_arenahard.arena.examiner import autoarena_questions
from inspect_arenahard.arena.peer_battle import autoarena_battle, model_position
from inspect_arenahard.arena.questions import load_battle_questions, questions_from_log
from inspect_arenahard.cli import main as cli
from inspect_arenahard.judging.style_features import count_tokens
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import leaderboard
from inspect_arenahard.stats.game_record import AnswerAudit
from tests.helpers.arena_scripted import Arena, requested_actions, secret, texts
from tests.helpers.battle_questions import QUESTIONS, write_questions
from tests.helpers.scripted import scripted_model

# The turn table of the README (round, speaker, actions), written out by hand.
TURN_ORDER = [
    (1, "A", ["respond"]),
    (1, "B", ["criticize", "raise"]),
    (1, "A", ["respond"]),
    (2, "B", ["respond"]),
    (2, "A", ["criticize", "raise"]),
    (2, "B", ["respond"]),
    (3, "A", ["criticize", "raise"]),
    (3, "B", ["respond", "criticize", "raise"]),
    (3, "A", ["respond"]),
]


def battle(
    arena: Arena,
    model: str,
    opponent: str,
    judges: list[str],
    questions: Path,
    log_dir: Path,
    reference: str | None = None,
    **args,
) -> EvalLog:  # type: ignore[no-untyped-def]
    roles = {"opponent": arena.model(opponent), "committee": [arena.model(j) for j in judges]}
    if reference:
        roles["reference"] = arena.model(reference)
    [log] = eval(
        autoarena_battle(questions=str(questions), **args),
        model=arena.model(model),
        model_roles=roles,
        display="none",
        log_dir=str(log_dir),
    )
    assert log.status == "success", log.error
    return log


@pytest.fixture
def played(tmp_path: Path):  # type: ignore[no-untyped-def]
    arena = Arena({"x": 5, "y": 3, "j1": 1, "j2": 1, "j3": 1})
    log = battle(
        arena,
        "x",
        "y",
        ["j1", "j2", "j3"],
        write_questions(tmp_path),
        tmp_path / "logs",
        reference="j1",
        seed=7,
    )
    return arena, log


def test_transcript_follows_the_turn_table_and_each_side_gets_equal_actions(played) -> None:  # type: ignore[no-untyped-def]
    arena, log = played
    assert "inspect_arenahard/peer_battle" in [step.solver for step in log.plan.steps]
    for sample in log.samples or []:
        meta = sample.metadata["battle"]
        assert meta["model_position"] == model_position(7, sample.id)
        assert meta["positions"][meta["model_position"]] == "mockllm/x"
        turns = meta["turns"]
        assert [(t["round"], t["speaker"], t["actions"]) for t in turns] == TURN_ORDER
        assert all(t["model"] == meta["positions"][t["speaker"]] for t in turns)
        # the conversation shown in inspect view: the question, then the nine turns in order
        assert [m.role for m in sample.messages] == ["user"] + ["assistant"] * 9
        assert sample.messages[0].text == sample.input
        assert [m.metadata["turn"] for m in sample.messages[1:]] == list(range(1, 10))  # type: ignore[index]
        for side in "AB":
            actions = [a for t in turns if t["speaker"] == side for a in t["actions"]]
            assert sorted(actions) == sorted(["respond"] * 3 + ["criticize"] * 2 + ["raise"] * 2)
    # every debater turn asked for exactly the actions of its row
    assert len(arena.of("debater")) == 9 * len(log.samples or [])


def test_think_is_never_shown_to_the_opponent_or_the_judges(played) -> None:  # type: ignore[no-untyped-def]
    arena, log = played
    secrets = [
        "SECRET-",
        "</think>",
    ]  # every model's thinking; the guides name <think> but never close it
    shown_to_debaters = [t for conv in arena.of("debater") for t in texts(conv, "user")]
    shown_to_judges = [t for conv in arena.of("judge") for t in texts(conv)]
    assert shown_to_debaters and shown_to_judges
    for text in shown_to_debaters + shown_to_judges:
        assert not any(s in text for s in secrets), text[:200]
    # a side remembers its own thinking in its own conversation (assistant turns) only
    own = [t for conv in arena.of("debater", "mockllm/x") for t in texts(conv, "assistant")]
    assert any(secret("x") in t for t in own)
    # the log keeps the thinking as a reasoning block, apart from the visible text
    for sample in log.samples or []:
        for message in sample.messages[1:]:
            kinds = [c.type for c in message.content]  # type: ignore[union-attr]
            assert kinds == ["reasoning", "text"]
            assert (
                "SECRET-" in message.content[0].reasoning
                and "SECRET-" not in message.content[1].text
            )  # type: ignore[union-attr]


def test_each_side_answers_the_question_before_seeing_the_other(played) -> None:  # type: ignore[no-untyped-def]
    arena, log = played
    openings = [c for c in arena.of("debater") if "Initial user input:" in c[-1].text]
    assert len(openings) == 2 * len(log.samples or [])
    assert all([m.role for m in c] == ["system", "user"] for c in openings)
    # later turns carry the opponent's turns since the side last spoke, in table order
    for sample in log.samples or []:
        turns = sample.metadata["battle"]["turns"]
        b_side = turns[3]["model"]
        b_conversations = [c for c in arena.of("debater", b_side) if sample.input in c[1].text]
        longest = max(b_conversations, key=len)
        fed = [m.text for m in longest if m.role == "user"][1:]
        # B is shown turn 1 (to criticize), then turns 3 and 5 together, then turn 7
        assert [sum(turns[i]["visible"] in f for i in range(9)) for f in fed] == [1, 2, 1]
        assert (
            turns[0]["visible"] in fed[0]
            and turns[2]["visible"] in fed[1]
            and turns[4]["visible"] in fed[1]
        )
        assert turns[6]["visible"] in fed[2]
        assert [requested_actions(f) for f in fed] == [
            ("criticize", "raise"),
            ("respond",),
            ("respond", "criticize", "raise"),
        ]


def test_committee_verdict_becomes_a_game_record_for_the_model(played) -> None:  # type: ignore[no-untyped-def]
    _, log = played
    positions = set()
    for sample in log.samples or []:
        score = sample.scores["autoarena_committee"]  # type: ignore[index]
        position = sample.metadata["battle"]["model_position"]
        positions.add(position)
        assert score.value == 1.0  # x (quality 5) beats y (3) from either side
        [game] = score.metadata["games"]
        assert game == {
            "judge": "committee",
            "game": 1,
            "model_position": position,
            "label": "A>B" if position == "A" else "B>A",
            "parsed": True,
            "attempts": 3,
        }
        assert score.metadata["model"] == "mockllm/x" and score.metadata["baseline"] == "mockllm/y"
        assert score.metadata["committee"]["games"][0]["final"] == position
    assert positions == {"A", "B"}  # seed 7 puts the model on both sides over these questions
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["mean"].value == 1.0 and metrics["unanimous_before"].value == 1.0


def test_reference_answers_reach_judges_for_reasoning_math_and_coding_only(played) -> None:  # type: ignore[no-untyped-def]
    arena, log = played
    by_question = {s.input: s for s in log.samples or []}
    for conv in arena.of("judge"):
        question = next(q for q in by_question if q in conv[1].text)
        wants_reference = by_question[question].metadata["domain"] in ("math", "coding")
        assert ("REFERENCE-j1" in conv[1].text) == wants_reference
    assert len(arena.of("reference")) == 2  # math and coding, never the players' turns


def test_turns_are_cut_to_their_word_limits(tmp_path: Path) -> None:
    arena = Arena({"x": 5, "y": 3, "j1": 1, "j2": 1}, words={"x": 1500, "y": 10})
    log = battle(
        arena, "x", "y", ["j1", "j2"], write_questions(tmp_path, QUESTIONS[:2]), tmp_path / "logs"
    )
    # 300 words (400 writing), twice that with all three actions; 4/3 tokens per word
    expected = {"math": {1: 400, 2: 400, 3: 800}, "writing": {1: 533, 2: 533, 3: 1066}}
    for sample in log.samples or []:
        for turn in sample.metadata["battle"]["turns"]:
            assert turn["limit"] == expected[sample.metadata["domain"]][len(turn["actions"])]
            long = turn["model"] == "mockllm/x"
            assert turn["truncated"] == long
            kept = [m for m in sample.messages[1:] if m.metadata["turn"] == turn["turn"]][0]  # type: ignore[index]
            raw = (kept.content[0].reasoning if len(kept.content) > 1 else "") + turn["visible"]  # type: ignore[union-attr]
            if long:
                assert turn["tokens"] > turn["limit"]
                # cut inside the padded <think>: nothing of the turn is visible, the cut text fits
                assert turn["visible"] == "" and turn["missing"] == turn["actions"]
                assert count_tokens(raw) <= turn["limit"] < count_tokens(raw + " word")
            else:
                assert count_tokens(raw) <= turn["limit"] and not turn["missing"]
    # the opponent was shown the cut, think-free turns only
    for conv in arena.of("debater", "mockllm/y"):
        assert all(secret("x") not in t for t in texts(conv, "user"))


def test_battle_logs_rank_models_that_are_model_in_some_games_and_baseline_in_others(
    tmp_path: Path,
) -> None:
    arena = Arena({"x": 5, "y": 3, "z": 1, "j1": 0, "j2": 0})
    questions = write_questions(tmp_path)
    logs = tmp_path / "logs"
    for model, opponent in [("x", "y"), ("y", "z"), ("z", "x")]:
        battle(arena, model, opponent, ["j1", "j2"], questions, logs)
    found = read_games([logs])
    assert not found.notes() and len(found.games) == 12
    assert {g["baseline"] for g in found.games} == {"mockllm/x", "mockllm/y", "mockllm/z"}
    table = leaderboard(from_games(found.games), baseline="mockllm/y", rounds=10, seed=0)
    assert [r.model for r in table.rows] == ["mockllm/x", "mockllm/y", "mockllm/z"]
    assert {r.model: r.n for r in table.rows} == {"mockllm/x": 8, "mockllm/y": 8, "mockllm/z": 8}


def test_leaderboard_cli_reads_battle_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arena = Arena({"x": 5, "y": 3, "j1": 0, "j2": 0})
    battle(arena, "x", "y", ["j1", "j2"], write_questions(tmp_path), tmp_path / "logs")
    assert cli(["leaderboard", str(tmp_path / "logs"), "--method", "bt", "--rounds", "10"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[1] for line in out.splitlines() if line[:4].strip().isdigit()]
    assert rows[:2] == ["mockllm/x", "mockllm/y"]  # pooled table, then one per domain
    assert "category: math | baseline: mockllm/y" in out


def test_battle_needs_an_opponent_and_a_committee(tmp_path: Path) -> None:
    arena = Arena({"x": 5, "y": 3, "j1": 0})
    questions = write_questions(tmp_path, QUESTIONS[:1])
    [log] = eval(
        autoarena_battle(questions=str(questions)),
        model=arena.model("x"),
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "error" and "--model-role opponent=" in log.error.message  # type: ignore[union-attr]
    [log] = eval(
        autoarena_battle(questions=str(questions)), model=arena.model("x"),
        model_roles={"opponent": arena.model("y"), "committee": arena.model("j1")}, display="none", log_dir=str(tmp_path),
    )  # fmt: skip
    assert log.status == "error" and "committee role needs at least 2 judges" in log.error.message  # type: ignore[union-attr]


EXAMINER_REPLY = """Here are the queries:
(1). {d} question one?
(2). {d} question two, with
a second line of context.
(3). {D} QUESTION ONE?
"""


def test_examiner_writes_deduplicated_questions_the_battle_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts: list[str] = []

    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        prompts.append(messages[-1].text)
        name = "math" if "math skills" in messages[-1].text else "code"
        return EXAMINER_REPLY.format(d=name, D=name.upper())

    [log] = eval(
        autoarena_questions(domains="math,coding", per_domain=3),
        model=scripted_model("examiner", reply), display="none", log_dir=str(tmp_path / "logs"),
    )  # fmt: skip
    assert log.status == "success"
    assert [score.name for score in log.results.scores] == ["examiner_questions"]  # type: ignore[union-attr]
    assert len(prompts) == 2
    for prompt in prompts:
        assert "drafting a set of 3 different user queries" in prompt
        assert (
            "arena" not in prompt.lower() and "compet" not in prompt.lower()
        )  # not told it will compete
    assert any("Develop a Python program that reads all the text files" in p for p in prompts)
    found = questions_from_log(log.location)
    assert [(q.id, q.domain) for q in found.questions] == [
        ("math-001", "math"),
        ("math-002", "math"),
        ("coding-001", "coding"),
        ("coding-002", "coding"),
    ]
    assert found.questions[1].question == "math question two, with\na second line of context."
    assert found.duplicates == {"math": 1, "coding": 1}
    assert "math: fewer questions than requested (2 < 3)" in found.notes()
    out = tmp_path / "q.jsonl"
    assert cli(["tournament", "questions", log.location, "-o", str(out)]) == 0
    assert "wrote 4 questions" in capsys.readouterr().out
    assert load_battle_questions(out) == found.questions
    assert [s.id for s in autoarena_battle(questions=str(out)).dataset] == [
        "math-001",
        "math-002",
        "coding-001",
        "coding-002",
    ]
    assert (
        len(autoarena_battle(questions=log.location, battles=2).dataset) == 2
    )  # the log itself works too


def test_bare_task_names_resolve() -> None:
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_lookup

    ensure_entry_points()
    for name in ("autoarena_battle", "autoarena_questions"):
        assert registry_lookup("task", name) is not None
        assert registry_lookup("task", f"inspect_arenahard/{name}") is not None
    assert registry_lookup("scorer", "inspect_arenahard/autoarena_committee") is not None


def test_bare_battle_task_runs_from_any_directory(tmp_path: Path) -> None:
    from tests.helpers.inspect_cli import inspect_eval_cli

    questions = write_questions(tmp_path, QUESTIONS[:1])
    args = [
        "autoarena_battle", "-T", f"questions={questions}",
        "--model", "mockllm/x", "--model-role", "opponent=mockllm/y", "--model-role", "committee=mockllm/j1,mockllm/j2",
    ]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    assert log.status == "success" and log.eval.model_roles["committee"][0].model == "mockllm/j1"  # type: ignore[index]
    [sample] = log.samples or []
    # mockllm's default reply has no [A]/[B]/[Tie]: the battle is unscored, not a tie
    [game] = sample.scores["autoarena_committee"].metadata["games"]  # type: ignore[index,union-attr]
    assert (
        game["label"] is None and not game["parsed"] and game["attempts"] == 8
    )  # 2 judges × 2 rounds × (reply + 1 retry)


def test_task_file_builds_the_same_tasks(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tasks_autoarena", Path(__file__).resolve().parents[2] / "tasks" / "autoarena.py"
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    assert len(module.autoarena_battle(questions=str(write_questions(tmp_path))).dataset) == 4
    assert len(module.autoarena_questions(domains="math").dataset) == 1


def test_battle_scores_carry_the_audit_and_usage_records(played, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The committee's score records the model's answer for the audit and the sample's calls
    for the cost report: equal to what the full samples give, so neither reads them."""
    from inspect_arenahard.judging.answer_audit import PromptIndex, answer_audit
    from inspect_arenahard.logs import reader
    from inspect_arenahard.report.audit_inputs import AnswerReader, _sample
    from inspect_arenahard.report.costs import UsageReader
    from inspect_arenahard.stats.sample_usage import sample_usage

    _, log = played
    index = PromptIndex([s.input for s in log.samples or []])  # type: ignore[misc]
    full_reads = []
    real = reader.sample_records
    monkeypatch.setattr(reader, "sample_records", lambda *a: full_reads.append(a) or real(*a))
    answers, usage = AnswerReader(), UsageReader()
    reader.read_games([log.location], reader.SampleReaders([answers, usage]))
    assert full_reads == []
    recorded = {
        sample_id: AnswerAudit.from_row(row)
        for _, sample_id, _, _, row in answers.records_by_log[log.location]
    }
    events = []
    for raw in real(log.location, []):
        _, full = _sample(raw)
        rebuilt = answer_audit(full.prompt, full.answer, None, "stop", index)
        assert recorded[str(raw["id"])] == rebuilt and rebuilt.off_prompt_rank == 0.0
        events += raw["events"]
    assert usage.tally_by_log[log.location] == sample_usage(events).roles
    assert set(usage.tally_by_log[log.location]) == {"model", "opponent", "committee", "reference"}
