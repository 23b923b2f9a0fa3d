"""Auto-Arena rules without models: the turn table, length limits, hidden thinking, question
files, examiner lists, Swiss pairing, committees and ratings."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from inspect_arenahard.arena.domains import domain, domains, parse_domains, token_limit, word_limit
from inspect_arenahard.arena.examiner import parse_numbered_list
from inspect_arenahard.arena.protocol import (
    PROTOCOL,
    apply_rules,
    cut_to_tokens,
    generation_order,
    strip_think,
    unseen,
)
from inspect_arenahard.arena.questions import (
    BattleQuestion,
    load_battle_questions,
    select_battle_questions,
)
from inspect_arenahard.arena.ratings import ELO_BASE, elo, fit_ratings
from inspect_arenahard.arena.swiss import committee_for, nearest_opponent, swiss_round, swiss_rounds
from inspect_arenahard.judging.style_features import count_tokens
from inspect_arenahard.stats.quality import rank_correlations


def test_both_sides_get_the_same_actions_and_words_in_every_domain() -> None:
    for dom in domains().values():
        for side in "AB":
            steps = [s for s in PROTOCOL if s.speaker == side]
            actions = sorted(a for s in steps for a in s.actions)
            assert actions == sorted(["respond"] * 3 + ["criticize"] * 2 + ["raise"] * 2)
        words = {
            side: sum(word_limit(s.actions, dom) for s in PROTOCOL if s.speaker == side)
            for side in "AB"
        }
        assert words["A"] == words["B"] == 5 * dom.words


def test_each_side_is_shown_the_opponent_turns_it_missed_in_table_order() -> None:
    delivered: dict[str, set[int]] = {"A": set(), "B": set()}
    shown = {}
    for step in generation_order():
        if step.answers_question:
            shown[step.index + 1] = []
            continue
        seen = unseen(step, delivered[step.speaker])
        delivered[step.speaker].update(s.index for s in seen)
        shown[step.index + 1] = [s.index + 1 for s in seen]
    # turn numbers as in the README table; 1 and 4 are the answers to the question
    assert [s.index + 1 for s in generation_order()][:2] == [1, 4]
    assert shown == {1: [], 4: [], 2: [1], 3: [2], 5: [4], 6: [3, 5], 7: [6], 8: [7], 9: [8]}


def test_word_limits_follow_the_paper() -> None:
    assert {k: d.words for k, d in domains().items()} == {
        "writing": 400, "roleplay": 400, "extraction": 300, "reasoning": 300,
        "math": 300, "coding": 400, "stem": 300, "humanities": 400,
    }  # fmt: skip
    assert [k for k, d in domains().items() if d.reference] == ["reasoning", "math", "coding"]
    math, writing = domain("math"), domain("writing")
    assert word_limit(("respond",), math) == 300 and word_limit(("criticize", "raise"), math) == 300
    assert word_limit(("respond", "criticize", "raise"), math) == 600
    assert word_limit(("respond", "criticize", "raise"), writing) == 800
    assert [token_limit(w) for w in (300, 400, 600, 800)] == [400, 533, 800, 1066]


def test_domains_by_key_or_examiner_name() -> None:
    assert (
        domain("STEM knowledge").key == "stem"
        and domain("Humanities/Social Science Knowledge").key == "humanities"
    )
    assert [d.key for d in parse_domains("math, writing")] == ["writing", "math"]
    assert len(parse_domains("all")) == 8
    with pytest.raises(ValueError, match="unknown domain 'poetry'; known: writing, roleplay"):
        parse_domains("poetry")


def test_think_is_removed_closed_or_not() -> None:
    assert strip_think("<think>plan</think><respond>Hi</respond>") == "<respond>Hi</respond>"
    assert (
        strip_think("<THINK>a</THINK><criticize>x</criticize><think>b</think><raise>y</raise>")
        == "<criticize>x</criticize><raise>y</raise>"
    )
    assert strip_think("<respond>Hi</respond><think>unfinished plan") == "<respond>Hi</respond>"
    assert strip_think("<think>no close <respond>Hi</respond>") == "<respond>Hi</respond>"


def test_cut_keeps_the_most_whole_words_that_fit() -> None:
    text = "<respond>" + " ".join(f"w{i}" for i in range(400)) + "</respond>"
    kept, total = cut_to_tokens(text, 100, "cl100k_base")
    assert total == count_tokens(text) > 100
    assert (
        count_tokens(kept)
        <= 100
        < count_tokens(text[: len(kept) + len(text[len(kept) :].split()[0]) + 1])
    )
    assert text.startswith(kept) and not kept.endswith(" ")
    assert cut_to_tokens("short answer", 100, "cl100k_base") == ("short answer", 2)
    turn = apply_rules(
        "<think>" + "x " * 300 + "</think><respond>late</respond>", ("respond",), 50, "cl100k_base"
    )
    assert turn.truncated and turn.visible == "" and turn.missing == ("respond",)


def test_examiner_list_parsing() -> None:
    parsed = parse_numbered_list(
        "Sure!\n(1). First?\n(2). Second,\nwith context.\n(3).  first? \n(4)."
    )
    assert parsed.questions == ["First?", "Second,\nwith context."]
    assert parsed.duplicates == 1 and parsed.preamble == "Sure!"
    # plain numbering only when no item uses the paper's parentheses
    assert parse_numbered_list("1. One\n2) Two").questions == ["One", "Two"]
    assert parse_numbered_list("(1). Context:\n1. a review\n2. another").questions == [
        "Context:\n1. a review\n2. another"
    ]
    assert parse_numbered_list("no list here").questions == []


def _write(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_question_files_fail_loudly(tmp_path: Path) -> None:
    good = {"id": 1, "question": "Q?", "domain": "math"}
    assert load_battle_questions(_write(tmp_path / "q.jsonl", [good])) == [
        BattleQuestion("1", "Q?", "math")
    ]
    with pytest.raises(ValueError, match=r"q.jsonl:2: missing field 'question'"):
        load_battle_questions(_write(tmp_path / "q.jsonl", [good, {"id": 2, "domain": "math"}]))
    with pytest.raises(ValueError, match=r"q.jsonl:2: duplicate id '1' \(first on line 1\)"):
        load_battle_questions(_write(tmp_path / "q.jsonl", [good, good]))
    with pytest.raises(ValueError, match=r"q.jsonl:1: field 'domain': unknown domain 'art'"):
        load_battle_questions(_write(tmp_path / "q.jsonl", [{**good, "domain": "art"}]))
    with pytest.raises(FileNotFoundError):
        load_battle_questions(tmp_path / "none.jsonl")


def test_pairing_questions_spread_over_domains() -> None:
    pool = [BattleQuestion(f"{d}-{i}", "q", d) for d in domains() for i in range(6)]
    chosen = select_battle_questions(pool, 40, seed=1)
    assert {d: sum(q.domain == d for q in chosen) for d in domains()} == {d: 5 for d in domains()}
    assert (
        select_battle_questions(pool, 40, seed=1)
        == chosen
        != select_battle_questions(pool, 40, seed=2)
    )
    few = [q for q in pool if q.domain != "math"] + [BattleQuestion("m", "q", "math")]
    assert (
        len({q.id for q in select_battle_questions(few, 43, seed=0)}) == 43
    )  # math's share moves elsewhere
    with pytest.raises(ValueError, match="49 questions requested but only 48 available"):
        select_battle_questions(pool, 49, seed=0)


def test_swiss_pairs_neighbours_without_repeats_and_gives_byes_at_the_bottom() -> None:
    ranking = list("abcdef")
    assert swiss_round(ranking, [], {}) == ([("a", "b"), ("c", "d"), ("e", "f")], None)
    # a met b: a takes c; the bottom backtracks rather than repeat e-f
    assert swiss_round(ranking, [("a", "b"), ("e", "f")], {}) == (
        [("a", "c"), ("b", "e"), ("d", "f")],
        None,
    )
    pairs, bye = swiss_round(list("abcde"), [], {"e": 1})
    assert bye == "d" and pairs == [("a", "b"), ("c", "e")]
    with pytest.raises(ValueError, match="no Swiss pairing without a repeated match"):
        swiss_round(list("abc"), [("a", "b"), ("a", "c"), ("b", "c")], {})
    assert [swiss_rounds(n) for n in (1, 2, 3, 4, 5, 6, 8, 9, 16, 17)] == [
        0,
        1,
        2,
        2,
        3,
        3,
        3,
        4,
        4,
        5,
    ]
    assert nearest_opponent("c", list("abcde"), [("c", "b")]) == "d"
    assert nearest_opponent("c", list("abcde"), []) == "b"  # equal distance: the better-ranked


def test_committee_excludes_players_and_optionally_their_families() -> None:
    ranking = ["openai/a", "anthropic/b", "openai/c", "google/d", "meta/e"]
    assert committee_for(ranking, ["openai/a", "google/d"], 2, False, {}) == [
        "anthropic/b",
        "openai/c",
    ]
    assert committee_for(ranking, ["openai/a", "google/d"], 5, True, {}) == [
        "anthropic/b",
        "meta/e",
    ]
    assert committee_for(ranking, ["openai/a", "google/d"], 5, True, {"openai/c": "oss"}) == [
        "anthropic/b",
        "openai/c",
        "meta/e",
    ]
    with pytest.raises(ValueError, match="only 1 eligible judges"):
        committee_for(ranking, ["openai/a", "google/d"], 5, True, {"meta/e": "google"})


def _game(winner: str, loser: str, k: int) -> dict:  # type: ignore[type-arg]
    return {
        "question_id": f"{winner}-{loser}-{k}",
        "model": winner,
        "baseline": loser,
        "model_position": "A",
        "label": "A>B",
        "parsed": True,
        "judge": "c",
    }


def test_ratings_are_elo_from_bradley_terry_with_the_prior_linking_components() -> None:
    assert elo(50.0) == ELO_BASE and elo(100 / 11) == pytest.approx(ELO_BASE - 400)
    # two separate pairs (after a first Swiss round): still rated, winners above losers
    games = (
        [_game("a", "b", k) for k in range(3)]
        + [_game("c", "d", k) for k in range(3)]
        + [_game("d", "c", 9)]
    )
    ratings = fit_ratings(games, ["b", "a", "d", "c"], prior_ties=1, rounds=5)
    ranking = ratings.ranking()
    assert ranking.index("a") < ranking.index("b") and ranking.index("c") < ranking.index("d")
    assert {r.model: r.battles for r in ratings.rows} == {"a": 3, "b": 3, "c": 4, "d": 4}
    unparsed = {**_game("a", "c", 0), "label": None, "parsed": False}
    assert {
        r.model: r.excluded for r in fit_ratings([*games, unparsed], list("abcd"), rounds=5).rows
    }["c"] == 1
    with pytest.raises(ValueError, match="no chain of battles links"):
        fit_ratings(games, list("abcd"), prior_ties=0, rounds=5)


def test_swiss_rounds_rank_well_from_any_prior() -> None:
    """Pure simulation (no models): deterministic outcomes, random priors, ⌈log2 n⌉ rounds."""
    truth = [f"m{i}" for i in range(6)]
    rng = random.Random(0)
    rhos = []
    for _ in range(25):
        prior = rng.sample(truth, len(truth))
        games: list[dict] = []  # type: ignore[type-arg]
        played: list[tuple[str, str]] = []
        ranking = prior
        for _round in range(swiss_rounds(6)):
            pairs, _ = swiss_round(ranking, played, {})
            played += pairs
            games += [_game(*sorted(p, key=truth.index), k) for p in pairs for k in range(2)]
            ranking = fit_ratings(games, prior, rounds=1).ranking()
        assert len(played) == 9 and len({frozenset(p) for p in played}) == 9
        rhos.append(rank_correlations([ranking.index(m) for m in truth], list(range(6)))[0])
    assert sum(rhos) / len(rhos) > 0.9 and min(rhos) > 0.6


def test_every_pair_meets_at_most_once_in_log2_rounds() -> None:
    for n in range(2, 11):
        models = [f"m{i}" for i in range(n)]
        played: list[tuple[str, str]] = []
        byes: dict[str, int] = {}
        for order in itertools.islice(itertools.cycle([models, models[::-1]]), swiss_rounds(n)):
            pairs, bye = swiss_round(order, played, byes)
            played += pairs
            if bye:
                byes[bye] = byes.get(bye, 0) + 1
        assert len({frozenset(p) for p in played}) == len(played) == (n // 2) * swiss_rounds(n)
