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
from scipy import stats

from inspect_arenahard.stats.agreement import AgreementSummary, judge_agreement
from inspect_arenahard.stats.game_record import GameRecord, check_game
from inspect_arenahard.stats.verdict_points import outcome_for, weighted_points

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


def _prompt_key(record: GameRecord) -> tuple[Hashable, ...]:
    return record["judge"], record["question_id"], record["model"], record["baseline"]


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


def position_analysis(records: Iterable[GameRecord]) -> list[PositionStats]:
    """Position bias (win rate of each slot over parsed games, with a two-sided binomial test
    of A vs B among decisive games) and position consistency (share of prompts whose two
    swapped games give the contestant the same outcome: win/tie/loss, and with strength)."""
    records = checked(records)
    by_judge: dict[str, list[GameRecord]] = defaultdict(list)
    for record in records:
        by_judge[record["judge"]].append(record)
    result = []
    for judge in sorted(by_judge):
        games = by_judge[judge]
        parsed = [label for r in games if (label := _parsed_label(r)) is not None]
        a_points = [outcome_for(label, "A")[0] for label in parsed]
        a_wins, b_wins = a_points.count(1.0), a_points.count(0.0)
        ties = len(parsed) - a_wins - b_wins
        decisive = a_wins + b_wins
        p_value = stats.binomtest(a_wins, decisive, 0.5).pvalue if decisive else math.nan
        complete, incomplete, same3, same5 = _swap_pairs(games)
        result.append(
            PositionStats(
                judge=judge,
                n_games=len(games),
                n_unparsed=len(games) - len(parsed),
                a_wins=a_wins,
                b_wins=b_wins,
                ties=ties,
                a_win_rate=_ratio(a_wins, len(parsed)),
                b_win_rate=_ratio(b_wins, len(parsed)),
                tie_rate=_ratio(ties, len(parsed)),
                a_share_of_decisive=_ratio(a_wins, decisive),
                position_p_value=float(p_value),
                n_prompts=complete,
                n_incomplete=incomplete,
                consistency=_ratio(same3, complete),
                consistency_strict=_ratio(same5, complete),
            )
        )
    return result


def _swap_pairs(games: list[GameRecord]) -> tuple[int, int, int, int]:
    """(complete swapped pairs, incomplete prompts, pairs agreeing on win/tie/loss, pairs
    agreeing exactly). Incomplete: a game missing, unparsed, or not in swapped positions."""
    prompts: dict[tuple[Hashable, ...], dict[Any, GameRecord]] = defaultdict(dict)
    for record in games:
        slot = prompts[_prompt_key(record)]
        if record["game"] in slot:
            raise ValueError(
                f"duplicate game {record['game']} for judge {record['judge']!r}, question "
                f"{record['question_id']!r}, model {record['model']!r} vs {record['baseline']!r}"
            )
        slot[record["game"]] = record
    complete = incomplete = same3 = same5 = 0
    for slot in prompts.values():
        pair = list(slot.values())
        outcomes = [o for o in map(model_outcome, pair) if o is not None]
        if (
            len(pair) != 2
            or len(outcomes) != 2
            or pair[0]["model_position"] == pair[1]["model_position"]
        ):
            incomplete += 1
            continue
        complete += 1
        same5 += int(outcomes[0] == outcomes[1])
        same3 += int(np.sign(outcomes[0]) == np.sign(outcomes[1]))
    return complete, incomplete, same3, same5


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

_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("openai", ("gpt", "chatgpt", "o1", "o3", "o4", "text-davinci")),
    ("anthropic", ("claude",)),
    ("google", ("gemini", "gemma", "bard", "palm")),
    ("meta", ("llama", "meta-llama", "codellama")),
    ("mistral", ("mistral", "mixtral", "codestral", "ministral", "pixtral")),
    ("alibaba", ("qwen", "qwq")),
    ("cohere", ("command", "c4ai", "aya")),
    ("01-ai", ("yi-",)),
    ("deepseek", ("deepseek",)),
    ("microsoft", ("phi-", "wizardlm")),
    ("databricks", ("dbrx",)),
    ("xai", ("grok",)),
    ("nvidia", ("nemotron",)),
)
_PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "google",
    "mistral": "mistral",
    "cohere": "cohere",
    "deepseek": "deepseek",
    "grok": "xai",
    "xai": "xai",
}


def model_family(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """Vendor family of a model name (``openai/gpt-4o`` and ``gpt-4o`` → ``openai``); an
    override map (exact name → family) wins; unknown names are their own family."""
    if overrides and name in overrides:
        return overrides[name]
    parts = name.lower().split("/")
    base = parts[-1]
    for family, prefixes in _FAMILIES:
        if base.startswith(prefixes):
            return family
    for part in parts[:-1]:
        if part in _PROVIDERS:
            return _PROVIDERS[part]
    return base


@dataclass(frozen=True)
class RankShift:
    """How far one model's rank under the judge is from its reference rank."""

    model: str
    family: str
    judge_rank: float
    reference_rank: float
    shift: float


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


def ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank 1 = best score; tied scores share their average rank."""
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
        RankShift(m, family_of(m), judge_ranks[m], ref_ranks[m], ref_ranks[m] - judge_ranks[m])
        for m in common
    ]
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


def longer_answer_preference(records: Iterable[GameRecord]) -> dict[str, dict[str, float]]:
    """Per judge: among decisive parsed games whose answers differ in length, the share won
    by the longer answer (0.5 = no length preference)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in checked(records):
        outcome = model_outcome(record)
        model_len, base_len = _token_len(record, "model"), _token_len(record, "baseline")
        if not outcome or model_len is None or base_len is None or model_len == base_len:
            continue
        acc = counts[record["judge"]]
        acc[0] += (outcome > 0) == (model_len > base_len)
        acc[1] += 1
    return {j: {"n": n, "longer_wins": k / n} for j, (k, n) in sorted(counts.items())}
