"""Committee discussion: majority/tie rule, battle verdicts, agreement statistics, and the
committee inside ``arenahard`` read back by the leaderboard's log reader."""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import defaultdict

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage
from sklearn.metrics import cohen_kappa_score

from inspect_arenahard.evaluate.dataset import load_questions
from inspect_arenahard.evaluate.task import arenahard
from inspect_arenahard.judging.committee import (
    committee_verdicts,
    discussion_agreement,
    majority,
    named_labels,
    parse_battle,
)
from inspect_arenahard.judging.games import JudgeSettings
from inspect_arenahard.logs.reader import read_games
from tests.helpers.scripted import CallCounter, judged, scripted_model
from tests.helpers.shared_data import shared

DISCUSSION = "Below are the responses from other judges in the committee."
BATTLE = named_labels("battle")
ARENA = named_labels("arenahard")


@pytest.mark.parametrize(
    "votes, want",
    [
        (["A", "A", "B"], "A"),
        (["A", "B", "Tie"], "Tie"),  # three-way split: the tie label
        (["A", "B"], "Tie"),
        (["A", None, None], "A"),  # no verdict: not a vote
        ([None, None], None),
        (["Tie", "Tie", "A"], "Tie"),
    ],
)
def test_battle_majority(votes: list[str | None], want: str | None) -> None:
    assert majority(votes, BATTLE) == want


@pytest.mark.parametrize(
    "votes, want",
    [
        (["A>>B", "A>B", "B>A"], "A>B"),  # side A wins 2–1; strengths split → the weaker label
        (["A>>B", "A>>B", "A>B"], "A>>B"),
        (["B>>A", "B>A", "A=B", "A=B"], "A=B"),  # sides B and tie level → tie
        (["A>B", "B>A"], "A=B"),
        (["A=B", "A=B", "B>>A"], "A=B"),
        (["B>>A", "B>>A", "B>A", "A>B"], "B>>A"),
    ],
)
def test_arenahard_majority(votes: list[str], want: str) -> None:
    assert majority(votes, ARENA) == want


@pytest.mark.parametrize(
    "text, want",
    [
        ("Assistant A is clearer. [A]", "A"),
        ("Judge 2 said [B], judge 3 said [Tie]; I keep my verdict: [A]", "A"),
        ("Equally good, so “[Tie]”.", "Tie"),
        ("[[A>B]] is not a battle label", None),
        ("no verdict at all", None),
    ],
)
def test_battle_verdict_is_the_last_label(text: str, want: str | None) -> None:
    assert parse_battle(text) == want


def battle_judge(name: str, first: str, later: str, counter: CallCounter):  # type: ignore[no-untyped-def]
    def reply(messages: list[ChatMessage]) -> str:
        return (
            f"After reading the others: [{later}]"
            if messages[-1].text.startswith(DISCUSSION)
            else f"My view. [{first}]"
        )

    return scripted_model(name, reply, counter)


def run_battle(verdicts: list[tuple[str, str]], rounds: int = 1):  # type: ignore[no-untyped-def]
    counter = CallCounter()
    judges = [
        battle_judge(f"j{k}", first, later, counter) for k, (first, later) in enumerate(verdicts)
    ]
    result = asyncio.run(
        committee_verdicts(
            judges, "<transcript>", "battle", rounds=rounds, settings=JudgeSettings(cache=False)
        )
    )
    return result, counter.count


def test_unanimous_committee_skips_discussion() -> None:
    result, calls = run_battle([("A", "B")] * 3)
    assert calls == 3 and len(result.rounds) == 1
    assert result.final == "A" and result.unanimous_before and result.unanimous_after


def test_judge_flips_after_seeing_the_others() -> None:
    result, calls = run_battle([("A", "A"), ("A", "A"), ("B", "A")], rounds=2)
    assert calls == 6 and len(result.rounds) == 2  # consensus after round 1 ends the discussion
    assert result.initial_labels == ["A", "A", "B"] and result.final_labels == ["A", "A", "A"]
    assert not result.unanimous_before and result.unanimous_after
    meta = result.metadata()
    assert [[t["label"] for t in turns] for turns in meta["rounds"]] == [
        ["A", "A", "B"],
        ["A", "A", "A"],
    ]
    assert "Judge 3 (mockllm/j2)" in result.transcript()


def test_persistent_split_runs_every_round_and_ties() -> None:
    result, calls = run_battle([("A", "A"), ("B", "B")], rounds=2)
    assert calls == 6 and len(result.rounds) == 3
    assert result.final == "Tie" and not result.unanimous_after


def test_discussion_prompt_shows_the_other_judges() -> None:
    seen: list[list[ChatMessage]] = []

    def speaker(opinion: str, record: bool):  # type: ignore[no-untyped-def]
        def reply(messages: list[ChatMessage]) -> str:
            if messages[-1].text.startswith(DISCUSSION):
                if record:
                    seen.append(messages)
                return "[A]"
            return f"I like {opinion}. [{opinion}]"

        return reply

    judges = [scripted_model("x", speaker("A", True)), scripted_model("y", speaker("B", False))]
    asyncio.run(
        committee_verdicts(judges, "<transcript>", rounds=1, settings=JudgeSettings(cache=False))
    )
    [conversation] = seen
    system, user, own, prompt = conversation
    assert (
        "chatbot arena" in system.text
        and user.text == "<transcript>"
        and own.text == "I like A. [A]"
    )
    assert (
        "Judge 2's verdict: B" in prompt.text
        and "I like B." in prompt.text
        and "Judge 1's" not in prompt.text
    )
    assert (
        "“[A]” if assistant A is better, “[B]” if assistant B is better, and “[Tie]” for a tie"
        in prompt.text
    )


def _independent_mean_kappa(labels: dict[str, dict[int, str]]) -> tuple[float, float]:
    agreements, kappas = [], []
    for a, b in itertools.combinations(sorted(labels), 2):
        items = sorted(set(labels[a]) & set(labels[b]))
        x, y = [labels[a][i] for i in items], [labels[b][i] for i in items]
        agreements.append(sum(p == q for p, q in zip(x, y)) / len(items))
        kappas.append(cohen_kappa_score(x, y))
    return sum(agreements) / len(agreements), sum(kappas) / len(kappas)


def test_discussion_agreement_matches_an_independent_computation() -> None:
    before = [
        ["A", "A", "B"],
        ["B", "B", "A"],
        ["A", "Tie", "B"],
        ["A", "A", "A"],
        ["Tie", None, "B"],
    ]
    after = [
        ["A", "A", "A"],
        ["B", "B", "B"],
        ["A", "A", "B"],
        ["A", "A", "A"],
        ["Tie", "Tie", "B"],
    ]
    judges = ["j1", "j2", "j3"]
    items = [
        {
            "rounds": [
                [{"judge": j, "label": lab} for j, lab in zip(judges, b)],
                [{"judge": j, "label": lab} for j, lab in zip(judges, a)],
            ],
            "unanimous_before": len(set(b)) == 1,
            "unanimous_after": len(set(a)) == 1,
        }
        for b, a in zip(before, after)
    ]
    got = discussion_agreement(items)
    for when, table in (("before", before), ("after", after)):
        labels = {
            j: {i: row[k] for i, row in enumerate(table) if row[k] is not None}
            for k, j in enumerate(judges)
        }
        agreement, kappa = _independent_mean_kappa(labels)
        assert got[f"agreement_{when}"] == pytest.approx(agreement)
        assert got[f"kappa_{when}"] == pytest.approx(kappa)
    assert got["unanimous_before"] == pytest.approx(1 / 5) and got[
        "unanimous_after"
    ] == pytest.approx(3 / 5)
    assert got["agreement_after"] > got["agreement_before"]


# ---------------------------------------------------------------- inside arenahard

V01 = shared("arena-hard-v0.1")
QUESTIONS = [q.prompt for q in load_questions(V01 / "question.jsonl")][:3]
# per question: each judge's (initial, after discussion) verdict, whatever the answer order
SCRIPT = {
    QUESTIONS[0]: [("A>B", "B>>A")]
    * 3,  # unanimous: the discussion verdict must never be asked for
    QUESTIONS[1]: [("B>A", "B>A"), ("B>A", "B>A"), ("A>>B", "B>A")],  # judge 3 flips
    QUESTIONS[2]: [("A>>B", "A>>B"), ("A>B", "A>B"), ("B>A", "B>A")],  # persistent split
}
FINAL = {QUESTIONS[0]: "A>B", QUESTIONS[1]: "B>A", QUESTIONS[2]: "A>B"}


def committee_member(seat: int, calls: dict[tuple[int, str, bool], int]):  # type: ignore[no-untyped-def]
    def reply(messages: list[ChatMessage]) -> str:
        question, _, _ = judged(messages)
        discussing = messages[-1].text.startswith(DISCUSSION)
        calls[(seat, question, discussing)] += 1
        first, later = SCRIPT[question][seat]
        return f"Reasons of judge {seat}. My final verdict: [[{later if discussing else first}]]"

    return scripted_model(f"member{seat}", reply)


@pytest.fixture(scope="module")
def committee_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One arenahard run with a scripted committee of three (uncached: the fixture outlives the
    per-test cache folder)."""
    log_dir = tmp_path_factory.mktemp("committee-logs")
    calls: dict[tuple[int, str, bool], int] = defaultdict(int)
    candidate = scripted_model("candidate", lambda messages: f"answer to {messages[-1].text[:20]}")
    task = arenahard(data_dir=str(V01), scorer="committee", committee_rounds=1, cache=False)
    [log] = eval(
        task,
        model=candidate,
        model_roles={"committee": [committee_member(k, calls) for k in range(3)]},
        limit=3,
        display="none",
        log_dir=str(log_dir),
    )
    assert log.status == "success", log.error
    return log, calls, log_dir


def test_committee_calls_discussion_only_without_consensus(committee_run) -> None:  # type: ignore[no-untyped-def]
    _, calls, _ = committee_run
    assert sum(v for (s, q, d), v in calls.items() if q == QUESTIONS[0] and d) == 0
    assert all(calls[(s, QUESTIONS[0], False)] == 2 for s in range(3))  # two games, no discussion
    assert all(
        calls[(s, q, d)] == 2 for s in range(3) for q in QUESTIONS[1:] for d in (False, True)
    )


def test_committee_inside_arenahard_keeps_the_pairwise_contract(committee_run) -> None:  # type: ignore[no-untyped-def]
    log, _, _ = committee_run
    by_question = {s.input: s.scores["pairwise_judge"] for s in log.samples or []}
    for question, score in by_question.items():
        games = score.metadata["games"]
        contract = [
            {k: g[k] for k in ("judge", "game", "model_position", "label", "parsed")} for g in games
        ]
        assert contract == [
            {
                "judge": "committee",
                "game": 1,
                "model_position": "B",
                "label": FINAL[question],
                "parsed": True,
            },
            {
                "judge": "committee",
                "game": 2,
                "model_position": "A",
                "label": FINAL[question],
                "parsed": True,
            },
        ]
        assert [g["attempts"] for g in games] == [3 if question == QUESTIONS[0] else 6] * 2
        assert set(score.metadata) >= {
            "model",
            "baseline",
            "category",
            "strong_weight",
            "games",
            "style",
            "committee",
        }
        committee = score.metadata["committee"]
        assert committee["judges"] == ["mockllm/member0", "mockllm/member1", "mockllm/member2"]
        for game in committee["games"]:
            rounds = [[t["label"] for t in turns] for turns in game["rounds"]]
            initial = [first for first, _ in SCRIPT[question]]
            assert rounds[0] == initial and game["final"] == FINAL[question]
            if question == QUESTIONS[0]:
                assert rounds == [initial] and game["unanimous_before"] and game["unanimous_after"]
            else:
                assert (
                    rounds[1] == [later for _, later in SCRIPT[question]]
                    and not game["unanimous_before"]
                )
        assert committee["unanimous_after"] == (question != QUESTIONS[2])
        assert committee["unanimous_before"] == (question == QUESTIONS[0])
        assert (
            "#### round 0" in score.explanation and "Judge 3 (mockllm/member2)" in score.explanation
        )
    # model at B in game 1 and at A in game 2: A>B is a loss then a win; B>A the reverse
    assert by_question[QUESTIONS[0]].value == pytest.approx(0.5)

    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["agreement_before"].value == pytest.approx((4 + 2 + 2) / 18)
    assert metrics["agreement_after"].value == pytest.approx((4 + 4 + 4) / 18)
    assert metrics["unanimous_before"].value == pytest.approx(2 / 6)
    assert metrics["unanimous_after"].value == pytest.approx(4 / 6)


def test_leaderboard_reader_reads_committee_games(committee_run) -> None:  # type: ignore[no-untyped-def]
    log, _, log_dir = committee_run
    games = read_games([log_dir])
    assert not games.notes()
    assert len(games.games) == 6 and {g["judge"] for g in games.games} == {"committee"}
    assert {(g["question_id"], g["game"]): g["label"] for g in games.games} == {
        (str(s.id), game): FINAL[s.input] for s in log.samples or [] for game in (1, 2)
    }
    assert all(g["style"] is not None and g["parsed"] for g in games.games)


def test_committee_needs_two_members() -> None:
    candidate = scripted_model("candidate", lambda messages: "answer")
    [log] = eval(
        arenahard(data_dir=str(V01), scorer="committee"),
        model=candidate,
        model_roles={"committee": scripted_model("alone", lambda m: "[[A=B]]")},
        limit=1,
        display="none",
    )
    assert log.status == "error" and "at least 2 judges" in str(log.error)


def test_unknown_scorer_is_rejected() -> None:
    with pytest.raises(ValueError, match="scorer=.* is not one of pairwise, committee"):
        arenahard(data_dir=str(V01), scorer="panel")


def test_nan_kappa_is_left_out_of_the_metric() -> None:
    items = [
        {
            "rounds": [[{"judge": "a", "label": "A"}, {"judge": "b", "label": "A"}]],
            "unanimous_before": True,
            "unanimous_after": True,
        }
    ]
    got = discussion_agreement(items)
    assert got["agreement_before"] == 1.0 and math.isnan(got["kappa_before"])
