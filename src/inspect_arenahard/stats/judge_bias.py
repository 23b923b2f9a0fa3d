"""Judge analytics on game records: position bias and consistency, judge-judge agreement,
self-bias (paper Table 10) and length bias with a "verbose policy" baseline (paper Table 12).

Game records are ``inspect_arenahard.stats.game_record.GameRecord`` dicts (as returned by
``inspect_arenahard.logs.reader.read_games``), checked by ``checked``. Labels
are read only through ``inspect_arenahard.judging.verdicts`` so they mean what they mean everywhere.
Unparsed games are counted and reported, never silently skipped.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Callable, Hashable, Iterable, Mapping

import numpy as np

from inspect_arenahard.stats.agreement import AgreementSummary, judge_agreement
from inspect_arenahard.stats.game_record import RECORD_FIELDS, GameRecord, check_game
from inspect_arenahard.stats.game_table import A_POINTS, GameTable, game_table
from inspect_arenahard.stats.model_families import model_family
from inspect_arenahard.stats.verdict_points import LABELS, outcome_for, weighted_points

VERBOSE_POLICY = "verbose-policy"


def checked(records: Iterable[Mapping[str, Any]]) -> list[GameRecord]:
    """The records as a list, after checking each has the fields these analyses read."""
    return [check_game(record, f"game record #{index}") for index, record in enumerate(records)]


def _parsed_label(record: GameRecord) -> str | None:
    """The game's verdict label, or None when the judge's reply was not parsed."""
    label = record.get("label")
    return label if label is not None and record.get("parsed", True) else None


def model_outcome(record: GameRecord) -> int | None:
    """The verdict from the contestant's side: 2 much better, 1 better, 0 tie, -1 worse,
    -2 much worse; None if unparsed. Comparable across games whatever the positions."""
    label = _parsed_label(record)
    if label is None:
        return None
    points, strong = outcome_for(label, record["model_position"])
    sign = 0 if points == 0.5 else (1 if points == 1.0 else -1)
    return sign * (2 if strong else 1)


# ---------------------------------------------------------------- position bias / consistency


@dataclass(frozen=True)
class PositionStats:
    """Per judge: how often each position wins, and whether swapped games agree."""

    judge: str
    n_games: int
    n_unparsed: int
    a_wins: int
    b_wins: int
    ties: int
    a_win_rate: float
    b_win_rate: float
    tie_rate: float
    a_share_of_decisive: float
    position_p_value: float
    n_prompts: int
    n_incomplete: int
    consistency: float
    consistency_strict: float

    def to_dict(self) -> dict[str, Any]:
        """As a dict, for the JSON outputs."""
        return asdict(self)


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


@dataclass(frozen=True)
class JudgeGames:
    """One judge's games as the indicators its position, tie and length figures count, each with
    its prompt as a cluster index (the figures' intervals cluster by prompt:
    ``inspect_arenahard.stats.shares.share_by_cluster``; None where there is no game)."""

    judge: str
    n_games: int
    label_codes: np.ndarray
    """Canonical label of each parsed game, as its index in ``LABELS``."""
    label_clusters: np.ndarray | None
    pair_clusters: np.ndarray | None
    """The prompt of each complete swapped pair (both games parsed, positions swapped)."""
    pair_same: np.ndarray
    """Per complete pair: both games give the model the same win/tie/loss."""
    pair_same_strict: np.ndarray
    """Per complete pair: the same outcome, strength included."""
    pair_slot: np.ndarray
    """Per complete pair: ``A`` or ``B`` when that position won both games, else ``""``."""
    n_incomplete: int
    longer_clusters: np.ndarray | None
    longer_won: np.ndarray
    """Per decisive parsed game whose answers differ in length: the longer answer won."""

    @property
    def labels(self) -> tuple[str, ...]:
        """Canonical label of each parsed game."""
        return tuple(_LABEL_NAMES[self.label_codes].tolist())

    @property
    def a_won(self) -> np.ndarray:
        """Per parsed game: position A won."""
        return A_POINTS[self.label_codes] == 1.0

    @property
    def tied(self) -> np.ndarray:
        """Per parsed game: a tie."""
        return self.label_codes == LABELS.index("A=B")


_LABEL_NAMES = np.array(LABELS, dtype=object)


def _clusters(order: np.ndarray) -> np.ndarray | None:
    """Prompt ranks (``GameTable.prompt_order`` of some rows) as a cluster index: 0 … prompts − 1
    in the same order, as ``stats.shares.cluster_index`` numbers the prompts' names."""
    return np.unique(order, return_inverse=True)[1].reshape(-1) if len(order) else None


def judge_games(records: GameTable | Iterable[GameRecord]) -> list[JudgeGames]:
    """Each judge's ``JudgeGames``, in name order, from the records or their table (each
    record checked to have every ``RECORD_FIELDS`` field)."""
    table = game_table(records, RECORD_FIELDS)
    pairs = _swap_pairs(table)
    longer_won, has_longer = _longer_won(table)
    prompt = table.prompt_order()
    out = []
    present = np.unique(table.judge_code).tolist()
    for code in sorted(present, key=lambda c: table.judges[c]):
        judge = table.judges[code]
        rows = np.flatnonzero(table.judge_code == code)
        parsed = rows[table.parsed[rows]]
        longer = parsed[has_longer[parsed]]
        mine = pairs.judge == code
        out.append(
            JudgeGames(
                judge=judge,
                n_games=len(rows),
                label_codes=table.label[parsed],
                label_clusters=_clusters(prompt[parsed]),
                pair_clusters=_clusters(prompt[pairs.first[mine]]),
                pair_same=pairs.same[mine],
                pair_same_strict=pairs.same_strict[mine],
                pair_slot=pairs.slot[mine],
                n_incomplete=int(np.sum(pairs.incomplete_judge == code)),
                longer_clusters=_clusters(prompt[longer]),
                longer_won=longer_won[longer],
            )
        )
    return out


def position_analysis(records: GameTable | Iterable[GameRecord]) -> list[PositionStats]:
    """Position bias (win rate of each slot over parsed games, with a two-sided binomial test
    of A vs B among decisive games) and position consistency (share of prompts whose two
    swapped games give the contestant the same outcome: win/tie/loss, and with strength)."""
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    result = []
    for games in judge_games(records):
        parsed = len(games.label_codes)
        a_wins, ties = int(games.a_won.sum()), int(games.tied.sum())
        b_wins = parsed - a_wins - ties
        decisive = a_wins + b_wins
        p_value = stats.binomtest(a_wins, decisive, 0.5).pvalue if decisive else math.nan
        complete = len(games.pair_same)
        result.append(
            PositionStats(
                judge=games.judge,
                n_games=games.n_games,
                n_unparsed=games.n_games - parsed,
                a_wins=a_wins,
                b_wins=b_wins,
                ties=ties,
                a_win_rate=_ratio(a_wins, parsed),
                b_win_rate=_ratio(b_wins, parsed),
                tie_rate=_ratio(ties, parsed),
                a_share_of_decisive=_ratio(a_wins, decisive),
                position_p_value=float(p_value),
                n_prompts=complete,
                n_incomplete=games.n_incomplete,
                consistency=_ratio(int(games.pair_same.sum()), complete),
                consistency_strict=_ratio(int(games.pair_same_strict.sum()), complete),
            )
        )
    return result


@dataclass(frozen=True)
class _SwapPairs:
    """The complete swapped pairs of a table (both games parsed, positions swapped), each
    judge's in the order its prompts first appear, and the judge of each incomplete prompt."""

    judge: np.ndarray
    first: np.ndarray
    """Row of each pair's first game (by game number)."""
    same: np.ndarray
    same_strict: np.ndarray
    slot: np.ndarray
    """``A`` or ``B`` when that position won both games, else ``""``."""
    incomplete_judge: np.ndarray


def _swap_pairs(table: GameTable) -> _SwapPairs:
    """Games grouped by (judge, question, model, baseline) by sorting codes: a prompt whose two
    games are parsed and in swapped positions is a complete pair; any other (a game missing,
    unparsed, or both in one position) is incomplete. A game number twice in one prompt is an
    error naming it."""
    prompts, models = int(table.prompt.max(initial=-1)) + 1, len(table.models)
    key = (table.judge_code * prompts + table.prompt) * models + table.model
    key = key * models + table.baseline
    games, game_code = table.games, table.game_code
    _check_duplicates(table, key, game_code, len(games))
    by_text = np.argsort(np.array([str(g) for g in games], dtype=object), kind="stable")
    game_rank = np.empty(len(games), dtype=np.int64)
    game_rank[by_text] = np.arange(len(games))
    _, first_seen, prompt_of, counts = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    order = np.lexsort((game_rank[game_code], prompt_of))
    start = np.cumsum(counts) - counts
    two = counts == 2
    first = order[start[two]]
    second = order[start[two] + 1]
    complete = (
        table.parsed[first]
        & table.parsed[second]
        & (table.position_a[first] != table.position_a[second])
    )
    by_appearance = np.argsort(first_seen[two][complete], kind="stable")
    first, second = first[complete][by_appearance], second[complete][by_appearance]
    outcome = table.outcome
    winner = np.array(["B", "", "A"], dtype=object)[
        np.sign(np.where(table.position_a, outcome, -outcome)).astype(np.int64) + 1
    ]
    return _SwapPairs(
        judge=table.judge_code[first],
        first=first,
        same=np.sign(outcome[first]) == np.sign(outcome[second]),
        same_strict=outcome[first] == outcome[second],
        slot=np.where(winner[first] == winner[second], winner[first], ""),
        incomplete_judge=np.r_[
            table.judge_code[first_seen[~two]], table.judge_code[order[start[two][~complete]]]
        ],
    )


def _check_duplicates(table: GameTable, key: np.ndarray, game_code: np.ndarray, games: int) -> None:
    """A ``ValueError`` naming the game a judge's prompt holds twice (the first met, judges in
    name order)."""
    _, first = np.unique(key * max(games, 1) + game_code, return_index=True)
    repeated = np.ones(len(key), dtype=bool)
    repeated[first] = False
    if not repeated.any():
        return
    judge_rank = np.argsort(np.argsort(np.array(table.judges, dtype=object), kind="stable"))
    rows = np.flatnonzero(repeated)
    record = table.records[rows[np.lexsort((rows, judge_rank[table.judge_code[rows]]))[0]]]
    raise ValueError(
        f"duplicate game {record['game']} for judge {record['judge']!r}, question "
        f"{record['question_id']!r}, model {record['model']!r} vs {record['baseline']!r}"
    )


# ---------------------------------------------------------------- judge-judge agreement


def judge_outcomes(
    records: Iterable[GameRecord], coarse: bool = False
) -> dict[str, dict[Hashable, int]]:
    """``[judge][(question, model, baseline, game)]`` → contestant outcome (−2..2, or −1/0/1
    when ``coarse``), parsed games only."""
    out: dict[str, dict[Hashable, int]] = defaultdict(dict)
    for record in checked(records):
        outcome = model_outcome(record)
        if outcome is not None:
            item = (record["question_id"], record["model"], record["baseline"], record["game"])
            out[record["judge"]][item] = int(np.sign(outcome)) if coarse else outcome
    return dict(out)


def judges_agreement(records: Iterable[GameRecord]) -> tuple[AgreementSummary, AgreementSummary]:
    """Agreement on the five-point outcome and on win/tie/loss, for judges scoring the same games."""
    records = checked(records)
    return judge_agreement(judge_outcomes(records)), judge_agreement(
        judge_outcomes(records, coarse=True)
    )


# ---------------------------------------------------------------- per-prompt scores


def per_prompt_scores(records: Iterable[GameRecord]) -> dict[str, dict[str, dict[Hashable, float]]]:
    """``[judge][model][question]`` → the contestant's share of that prompt's parsed games,
    Σ points·weight / Σ weight × 100 (Arena-Hard's weighting of strong verdicts)."""
    sums: dict[tuple[Hashable, ...], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for record in checked(records):
        label = _parsed_label(record)
        if label is not None:
            points, weight = weighted_points(label, record["model_position"])
            acc = sums[record["judge"], record["model"], record["question_id"]]
            acc[0] += points
            acc[1] += weight
    out: dict[str, dict[str, dict[Hashable, float]]] = defaultdict(lambda: defaultdict(dict))
    for (judge, model, question), (points, weight) in sums.items():
        out[judge][model][question] = 100.0 * points / weight  # type: ignore[index]
    return {j: dict(m) for j, m in out.items()}


# ---------------------------------------------------------------- self-bias


@dataclass(frozen=True)
class RankShift:
    """How far one model's rank under the judge is from its reference rank."""

    model: str
    family: str
    judge_rank: float
    reference_rank: float
    shift: float
    own_family: bool = False
    """The judge scored a model of its own family (or itself): ``judged_by_own_family``."""


@dataclass(frozen=True)
class SelfBias:
    """How a judge's ranking moves each family against a reference ranking; positive shift =
    the judge ranks the model better than the reference does."""

    judge: str
    judge_family: str
    rows: list[RankShift]
    family_shift: dict[str, float]

    @property
    def own_family_shift(self) -> float | None:
        """Shift of the judge's own family (None when no model of that family was ranked)."""
        return self.family_shift.get(self.judge_family)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, with the judge's own-family shift."""
        return asdict(self) | {"own_family_shift": self.own_family_shift}


def _bare(name: str) -> str:
    return name.rpartition("/")[2].lower()


def judged_by_own_family(
    judge: str, model: str, family_of: Callable[[str], str] = model_family
) -> bool:
    """Whether ``judge`` is ``model`` itself or of its family, provider prefixes removed
    (``openai/gpt-4o`` judging ``gpt-4o-mini``): the self-preference the Arena-Hard paper
    measures, and what a leaderboard's ``self-judged`` flag marks."""
    return _bare(judge) == _bare(model) or family_of(judge) == family_of(model)


def self_judged_share(
    games_by_judge: Mapping[str, int], model: str, family_of: Callable[[str], str] = model_family
) -> float:
    """The share of ``model``'s games scored by itself or its family (0 without games)."""
    total = sum(games_by_judge.values())
    own = sum(n for j, n in games_by_judge.items() if judged_by_own_family(j, model, family_of))
    return own / total if total else 0.0


def ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank 1 = best score; tied scores share their average rank."""
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    names = list(scores)
    values = stats.rankdata([-scores[n] for n in names], method="average")
    return {n: float(r) for n, r in zip(names, values)}


def self_bias(
    judge: str,
    judge_scores: Mapping[str, float],
    reference_scores: Mapping[str, float],
    family_of: Callable[[str], str] = model_family,
) -> SelfBias:
    """Rank shift per model and mean shift per family, over the models both rankings contain."""
    common = [m for m in judge_scores if m in reference_scores]
    judge_ranks = ranks({m: judge_scores[m] for m in common})
    ref_ranks = ranks({m: reference_scores[m] for m in common})
    rows = [
        RankShift(
            m, family_of(m), judge_ranks[m], ref_ranks[m], ref_ranks[m] - judge_ranks[m],
            judged_by_own_family(judge, m, family_of),
        )
        for m in common
    ]  # fmt: skip
    by_family: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by_family[row.family].append(row.shift)
    family_shift = {f: float(np.mean(v)) for f, v in sorted(by_family.items())}
    return SelfBias(judge, family_of(judge), sorted(rows, key=lambda r: r.judge_rank), family_shift)


def consensus_scores(scores: Mapping[str, Mapping[str, float]], exclude: str) -> dict[str, float]:
    """Mean score per model over every judge except ``exclude`` (a reference when no human
    ranking is given); models must be scored by all those judges."""
    others = [j for j in scores if j != exclude]
    if not others:
        return {}
    common = set.intersection(*(set(scores[j]) for j in others))
    return {m: float(np.mean([scores[j][m] for j in others])) for m in sorted(common)}


# ---------------------------------------------------------------- length bias


def _token_len(record: GameRecord, side: str) -> float | None:
    style = record.get("style") or {}
    value = (style.get(side) or {}).get("token_len")
    return None if value is None else float(value)


def correlations(x: Mapping[str, float], y: Mapping[str, float]) -> dict[str, float]:
    """Pearson and Spearman correlation over the keys both mappings share."""
    from scipy import stats  # on use: 0.4 s that ranking a battle file does without

    keys = [k for k in x if k in y]
    a = np.array([x[k] for k in keys], dtype=float)
    b = np.array([y[k] for k in keys], dtype=float)
    if len(keys) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return {"n": len(keys), "pearson": math.nan, "spearman": math.nan}
    return {
        "n": len(keys),
        "pearson": float(stats.pearsonr(a, b).statistic),
        "spearman": float(stats.spearmanr(a, b).statistic),
    }


def verbose_policy(records: Iterable[GameRecord]) -> list[dict[str, Any]]:
    """Synthetic games of a judge that always prefers the longer answer (tie if equally long),
    one per distinct (question, model, baseline, game) with style data, same positions."""
    seen: set[Hashable] = set()
    out = []
    for record in checked(records):
        model_len, base_len = _token_len(record, "model"), _token_len(record, "baseline")
        key = (record["question_id"], record["model"], record["baseline"], record["game"])
        if model_len is None or base_len is None or key in seen:
            continue
        seen.add(key)
        position = record["model_position"]
        if model_len == base_len:
            label = "A=B"
        else:
            longer = position if model_len > base_len else ("B" if position == "A" else "A")
            label = "A>B" if longer == "A" else "B>A"
        out.append(dict(record, judge=VERBOSE_POLICY, label=label, parsed=True))
    return out


def _longer_won(table: GameTable) -> tuple[np.ndarray, np.ndarray]:
    """(the longer answer won, the game counts): a decisive parsed game whose answers differ
    in length (and are both known) counts."""
    model_len, base_len = _token_lengths(table)
    outcome = table.outcome
    counts = (
        table.parsed
        & (outcome != 0)
        & ~np.isnan(model_len)
        & ~np.isnan(base_len)
        & (model_len != base_len)
    )
    return (outcome > 0) == (model_len > base_len), counts


def _token_lengths(table: GameTable) -> tuple[np.ndarray, np.ndarray]:
    """Token counts of each game's model and baseline answers (NaN where unknown)."""
    if table.model_style is None or table.baseline_style is None:
        return np.full(len(table), np.nan), np.full(len(table), np.nan)
    model_len, base_len = table.model_style[:, 0].copy(), table.baseline_style[:, 0].copy()
    for i in np.flatnonzero(table.malformed_style):  # read what is there, as the record has it
        model_len[i], base_len[i] = (
            np.nan if (n := _token_len(table.records[i], side)) is None else n
            for side in ("model", "baseline")
        )
    return model_len, base_len


def longer_answer_preference(
    records: GameTable | Iterable[GameRecord],
) -> dict[str, dict[str, float]]:
    """Per judge: among decisive parsed games whose answers differ in length, the share won
    by the longer answer (0.5 = no length preference)."""
    return {
        g.judge: {"n": len(g.longer_won), "longer_wins": float(g.longer_won.mean())}
        for g in judge_games(records)
        if len(g.longer_won)
    }
