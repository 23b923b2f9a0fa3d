"""The columnar game table against the per-game definitions: battles (points, weights, sides,
style) and each judge's games (labels, swapped pairs, the longer answer) computed game by game
with dicts, on generated records with unparsed games, ties, mirrored labels, swaps missing a
partner or in one position, several judges, a strong weight other than the default and partial
style; the one-line errors the per-record checks give; and the prompt clusters of the judge
checks' intervals against numpy's ``unique``."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspect_arenahard.stats.battles import from_games, records_weight
from inspect_arenahard.stats.game_table import game_table, style_vector
from inspect_arenahard.stats.judge_bias import judge_games, model_outcome
from inspect_arenahard.stats.judge_checks import check_judges
from inspect_arenahard.stats.name_codes import SortedNameCodes, name_codes
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.stats.shares import cluster_index
from inspect_arenahard.stats.verdict_points import STRONG_WEIGHT, normalize_label, outcome_for

LABELS = ["A>>B", "A>B", "A=B", "B>A", "B>>A", "B<A", "A<<B", "A >> B", None]


def features(tokens: int, extra: int) -> dict:
    return {
        "token_len": tokens,
        "header_count": {"h1": extra, "h2": 1},
        "list_count": {"ordered": extra},
        "bold_count": {"**": 2 * extra},
    }


@st.composite
def records(draw: st.DrawFn) -> list[dict]:
    """Games of a few judges, models and prompts; most prompts have both swapped games."""
    out = []
    weight = draw(st.sampled_from([None, 3, 5]))
    for judge in draw(st.lists(st.sampled_from(["j1", "j2", "j3"]), min_size=1, unique=True)):
        for q in range(draw(st.integers(1, 6))):
            for model in draw(
                st.lists(st.sampled_from(["m1", "m2", "base"]), min_size=1, unique=True)
            ):
                style = None
                if draw(st.booleans()):
                    lengths = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)))
                    style = {"model": features(lengths[0], q), "baseline": features(lengths[1], 1)}
                for game in draw(st.sampled_from([(1, 2), (2, 1), (1,), (2,)])):
                    label = draw(st.sampled_from(LABELS))
                    position = draw(st.sampled_from(["B" if game == 1 else "A", "A", "B"]))
                    record = {
                        "question_id": f"q{q}", "model": model, "baseline": "base", "judge": judge,
                        "game": game, "model_position": position, "label": label,
                        "category": draw(st.sampled_from(["c1", "c2", None])), "style": style,
                        "epoch": draw(st.sampled_from([1, 2, None])), "log": f"{judge}.eval",
                    }  # fmt: skip
                    if draw(st.booleans()):
                        record["parsed"] = label is not None and draw(st.booleans())
                    if weight is not None:
                        record["strong_weight"] = weight
                    out.append(record)
    return out


def counted_label(record: dict) -> str | None:
    label = record.get("label")
    return label if label is not None and record.get("parsed", True) else None


@settings(max_examples=150, deadline=None)
@given(records(), st.sampled_from([None, 1, 2]))
def test_battles_are_the_games_one_by_one(games, strong_weight):
    battles = from_games(games, strong_weight)
    weight = (
        strong_weight
        if strong_weight is not None
        else (games[0].get("strong_weight") or STRONG_WEIGHT)
    )
    has_style = any(g["style"] is not None for g in games)
    assert battles.models == tuple(sorted({g["model"] for g in games} | {"base"}))
    for i, game in enumerate(games):
        a, b = (game["model"], "base") if game["model_position"] == "A" else ("base", game["model"])
        assert (battles.models[battles.a[i]], battles.models[battles.b[i]]) == (a, b)
        label = counted_label(game)
        if label is None or game["model"] == "base":
            assert math.isnan(battles.points[i]) and battles.weight[i] == 1.0
        else:
            points, strong = outcome_for(label, "A")
            assert battles.points[i] == points
            assert battles.weight[i] == (weight if strong else 1.0)
        assert battles.judge[i] == game["judge"] and battles.baseline[i] == "base"
        assert (
            battles.category[i] == game["category"]
            and battles.question_id[i] == game["question_id"]
        )
        assert battles.epoch[i] == (game["epoch"] or 1)
        if not has_style:
            assert battles.style_a is None
        elif game["style"] is None:
            assert np.isnan(battles.style_a[i]).all() and np.isnan(battles.style_b[i]).all()
        else:
            model, base = (
                style_vector(game["style"]["model"]),
                style_vector(game["style"]["baseline"]),
            )
            sides = (model, base) if game["model_position"] == "A" else (base, model)
            assert tuple(battles.style_a[i]) == sides[0] and tuple(battles.style_b[i]) == sides[1]


def reference_judge_games(games: list[dict]) -> dict:
    """Each judge's figures the way they are defined, game by game."""
    out = {}
    for judge in sorted({g["judge"] for g in games}):
        mine = [g for g in games if g["judge"] == judge]
        parsed = [g for g in mine if counted_label(g) is not None]
        prompts: dict = defaultdict(dict)
        for g in mine:
            prompts[g["question_id"], g["model"], g["baseline"]][g["game"]] = g
        pairs, incomplete = [], 0
        for slot in prompts.values():
            pair = [slot[k] for k in sorted(slot, key=str)]
            if (
                len(pair) == 2
                and all(model_outcome(g) is not None for g in pair)
                and (pair[0]["model_position"] != pair[1]["model_position"])
            ):
                pairs.append(pair)
            else:
                incomplete += 1

        def a_side(g: dict) -> str:
            points = outcome_for(counted_label(g), "A")[0]
            return "A" if points == 1.0 else "B" if points == 0.0 else ""

        def tokens(g: dict, side: str) -> float | None:
            return None if g["style"] is None else float(g["style"][side]["token_len"])

        longer = []
        for g in parsed:
            outcome, m, b = model_outcome(g), tokens(g, "model"), tokens(g, "baseline")
            if outcome and m is not None and b is not None and m != b:
                longer.append((g["question_id"], (outcome > 0) == (m > b)))

        def clusters(prompts: list) -> list | None:
            """Each game's prompt as the judge checks cluster it: names sorted as ``str``."""
            return cluster_index(prompts).tolist() if prompts else None

        out[judge] = {
            "n_games": len(mine),
            "labels": tuple(normalize_label(counted_label(g)) for g in parsed),
            "label_clusters": clusters([g["question_id"] for g in parsed]),
            "pair_clusters": clusters([p[0]["question_id"] for p in pairs]),
            "pair_same": [
                np.sign(model_outcome(p[0])) == np.sign(model_outcome(p[1])) for p in pairs
            ],
            "pair_same_strict": [model_outcome(p[0]) == model_outcome(p[1]) for p in pairs],
            "pair_slot": tuple(a_side(p[0]) if a_side(p[0]) == a_side(p[1]) else "" for p in pairs),
            "n_incomplete": incomplete,
            "longer_clusters": clusters([q for q, _ in longer]),
            "longer_won": [won for _, won in longer],
        }
    return out


@settings(max_examples=150, deadline=None)
@given(records())
def test_judge_games_are_the_games_one_by_one(games):
    expected = reference_judge_games(games)
    found = {g.judge: g for g in judge_games(games)}
    assert list(found) == list(expected)
    for judge, want in expected.items():
        got = found[judge]
        for name, value in want.items():
            mine = getattr(got, name)
            assert (list(mine) if np.ndim(mine) else mine) == (
                list(value) if np.ndim(mine) else value
            ), (judge, name)


@settings(max_examples=40, deadline=None)
@given(records(), st.sampled_from([None, "j1"]), st.sampled_from([None, "c1"]))
def test_a_ranking_reads_one_table_for_battles_and_judge_checks(games, judge, category):
    """The table ``rank`` builds once gives the same battles and checks as the records do."""
    if judge is not None and judge not in {g["judge"] for g in games}:
        judge = None
    if category is not None and category not in {g["category"] for g in games}:
        category = None
    if not any(counted_label(g) and g["model"] != "base" for g in games):
        return
    options = RankingOptions(judge=(judge,) if judge else None, category=category, rounds=5)
    try:
        ranking = rank(games, options)
    except ValueError:
        return  # a table the fits refuse, or an empty selection (named): not what is tested here
    kept = [
        g
        for g in games
        if (judge is None or g["judge"] == judge)
        and (category is None or g["category"] == category)
    ]
    assert ranking.games == tuple(kept)
    checks = check_judges(kept, options.ci)
    assert repr([c.to_dict() for c in ranking.judge_checks]) == repr([c.to_dict() for c in checks])


def test_bad_records_are_named_as_the_per_record_check_names_them():
    good = {"question_id": "q", "model": "m", "baseline": "b", "judge": "j", "game": 1,
            "model_position": "A", "label": "A>B"}  # fmt: skip
    with pytest.raises(
        ValueError,
        match=r"^game record 1 \(question_id='q', model='m'\): missing field\(s\) baseline",
    ):
        from_games([good, {k: v for k, v in good.items() if k != "baseline"}])
    with pytest.raises(ValueError, match=r"^game record #1: missing field\(s\) judge"):
        judge_games([good, {k: v for k, v in good.items() if k != "judge"}])
    with pytest.raises(ValueError, match=r"^game record #0: missing field\(s\) game"):
        judge_games(game_table([{k: v for k, v in good.items() if k != "game"}]))
    with pytest.raises(ValueError, match=r"field 'model_position' must be 'A' or 'B', got 'C'"):
        from_games([good, dict(good, model_position="C")])
    with pytest.raises(ValueError, match=r"unknown verdict label 'A>>>B'"):
        from_games([dict(good, label="A>>>B")])
    with pytest.raises(
        ValueError, match=r"^game record 1 .*: malformed style metadata \(KeyError: 'bold_count'\)"
    ):
        style = {"token_len": 1, "header_count": {}, "list_count": {}}
        from_games([good, dict(good, style={"model": style, "baseline": style})])
    with pytest.raises(
        ValueError, match=r"duplicate game 1 for judge 'j', question 'q', model 'm' vs 'b'"
    ):
        judge_games([good, dict(good, label="B>A")])
    with pytest.raises(ValueError, match=r"different strong weights \(3 in a, 5 in b\)"):
        from_games([dict(good, strong_weight=3, log="a"), dict(good, strong_weight=5, log="b")])
    assert records_weight([dict(good, strong_weight=5)]) == 5.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 12), st.sampled_from(["q1", "q10", "q2", "é", "1"]))))
def test_cluster_index_is_numpys_unique_of_the_names(clusters):
    """The judge checks' intervals group games by ``str`` of the prompt, in sorted order."""
    if not clusters:
        return
    expected = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)[1]
    assert cluster_index(clusters).tolist() == expected.ravel().tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["q1", "q10", "q2", "é", "1", "中", "\U0001f600"]), min_size=1),
    st.data(),
)
def test_codes_a_reader_gave_group_any_rows_left_as_the_names_do(clusters, data):
    """Codes of all the rows, taken at some rows: the sorted-name codes of those rows' values."""
    keep = np.array(
        data.draw(st.lists(st.booleans(), min_size=len(clusters), max_size=len(clusters)))
    )
    made: list[int] = []
    coded = SortedNameCodes(lambda: made.append(1) or name_codes(clusters)[1])[keep]
    assert not made  # not until the codes are asked for
    expected = name_codes(np.array(clusters)[keep].tolist())[1]
    assert cluster_index(coded).tolist() == expected.tolist() and made == [1]


def test_a_judge_without_battles_in_the_category_is_named_not_ranked_empty() -> None:
    """Each filter alone is present, the two together select nothing: one clear error."""
    games = [
        {"question_id": f"q{i}", "model": "m", "baseline": "base", "judge": judge,
         "category": category, "model_position": position, "label": "A>B", "game": game}
        for i, (judge, category) in enumerate([("j1", "c1"), ("j2", "c2")])
        for game, position in ((1, "A"), (2, "B"))
    ]  # fmt: skip
    with pytest.raises(
        ValueError, match=r"no battles judged by 'j1' in category 'c2'; their categories: c1"
    ):
        rank(games, RankingOptions(judge=("j1",), category="c2", rounds=5))
