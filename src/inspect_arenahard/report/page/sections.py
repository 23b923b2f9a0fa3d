"""What the HTML report shows, computed from the logs with the same code as the CLI commands
(no HTML here): leaderboards plain and style-controlled, per-model style and cost, judge
analytics, benchmark quality and power, and the disputed games to open in ``inspect view``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspect_arenahard.report.costs import CostReport, Usage, read_prices
from inspect_arenahard.report.score_table_files import load_name_map, load_score_table
from inspect_arenahard.stats import judge_bias, power
from inspect_arenahard.stats.combined import COMBINED, prompts_per_category
from inspect_arenahard.stats.estimates import Leaderboard
from inspect_arenahard.stats.game_record import BATTLE_FIELDS, GameRecord
from inspect_arenahard.stats.game_table import GameTable, game_table, record_named
from inspect_arenahard.stats.judge_card import JudgeCard, judge_cards
from inspect_arenahard.stats.judge_checks import JudgeCheck
from inspect_arenahard.stats.judge_coverage import TableJudging
from inspect_arenahard.stats.ranking import (
    DEFAULT_STYLE,
    Ranking,
    RankingOptions,
    rank,
)
from inspect_arenahard.stats.reference_comparison import MIN_MODELS, compare_with_reference
from inspect_arenahard.stats.score_tables import align_models, leaderboard_scores
from inspect_arenahard.stats.style_control import parse_features

DISPUTED_SHOWN = 60
"""Disputed games listed on the page (the total is always stated)."""


@dataclass(frozen=True)
class Options:
    """What to compute for the report (the ``arenahard report`` flags)."""

    ranking: RankingOptions = field(default_factory=RankingOptions)
    """The tables' options, as ``arenahard leaderboard``'s; ``style_control`` names the features
    of the style-controlled board (default ``DEFAULT_STYLE``)."""
    reference: Path | None = None
    name_map: Path | None = None
    prices: Path | None = None
    delta: float = 2.0
    audit: bool = True
    """Show ``arenahard audit``'s per-model flags (reads every answer)."""


@dataclass(frozen=True)
class Anchor:
    """A category's baseline (scored 50) and its share of the prompts, for the combined table."""

    category: str
    baseline: str
    share: float


@dataclass(frozen=True)
class Board:
    """One table's ranking (a category, the pooled or the combined table), plain and (when it
    can be fitted) style-controlled."""

    plain: Leaderboard
    styled: Leaderboard | None
    styled_note: str | None
    style_features: tuple[str, ...] = ()
    """The features the style-controlled twin holds equal (also for the combined table, whose
    own rows carry no coefficients)."""
    anchors: tuple[Anchor, ...] = ()
    """The combined table's per-category anchors (empty for other tables: ``plain.baseline``)."""
    judging: TableJudging | None = None
    """Who judged each row and which rows compare (None without judge names)."""


@dataclass(frozen=True)
class PromptCoverage:
    """How many prompts each model was judged on and how many every model shares: a model
    judged on other or fewer prompts than the rest is compared on a different question set."""

    per_model: dict[str, int]
    shared: int

    @property
    def uneven(self) -> bool:
        """Some model was judged on prompts another was not."""
        return any(n != self.shared for n in self.per_model.values())


@dataclass(frozen=True)
class ModelSummary:
    """Answer style against the baseline on the same prompts, verdict counts, logs and cost."""

    model: str
    prompts: int
    games: int
    unparsed: int
    style: dict[str, tuple[float, float]]
    """feature → (model's mean per answer, baseline's mean on the same prompts)."""
    logs: list[str]
    cost: Usage | None


@dataclass(frozen=True)
class Disputed:
    """A position-inconsistent prompt: its two position-swapped games give the model different
    outcomes (win, tie or loss) under one judge. These are the pairs the judges table's
    "position-consistent %" does not count as consistent."""

    log: str
    sample_id: str
    epoch: int
    judge: str
    model: str
    labels: tuple[str | None, str | None]
    outcomes: tuple[int, int]
    """Each game's verdict from the model's side: 2 much better … -2 much worse."""


@dataclass
class Report:
    """Everything the HTML page shows, computed and ready to render."""

    logs: list[str]
    notes: list[str]
    boards: list[Board]
    models: list[ModelSummary]
    costs: CostReport
    positions: list[judge_bias.PositionStats]
    judge_checks: tuple[JudgeCheck, ...]
    """Each judge's information checks (the leaderboard's flags)."""
    agreement: Any | None
    length: dict[str, dict[str, float]]
    longer: dict[str, dict[str, float]]
    power: dict[str, power.PowerReport]
    disputed: list[Disputed]
    n_disputed: int
    coverage: PromptCoverage = field(default_factory=lambda: PromptCoverage({}, 0))
    quality: dict[str, Any] | None = None
    flags: dict[str, list[str]] = field(default_factory=dict)
    """``arenahard audit`` flags per model (empty without the audit)."""
    evaluators: list[JudgeCard] = field(default_factory=list)
    """Report cards of the ``arenahard_judgecard`` logs among the inputs (empty: none)."""
    options: Options = field(default_factory=Options)


def build(logs: Sequence[str], options: Options) -> Report:
    """Read the logs and compute every section; no games at all is an error."""
    from inspect_arenahard.report.log_reading import read_logs

    read = read_logs(  # one read: games, audit flags and costs
        logs,
        audit=options.audit,
        prices=read_prices(options.prices) if options.prices else None,
        cost=True,
    )
    result = read.ranked.read
    costs = read.costs if read.costs is not None else CostReport()
    table = game_table(read.ranked.games, BATTLE_FIELDS, record_named)  # once, for every ranking
    plain, styled, note = _rankings(table, options.ranking)
    ranked = plain.columns if plain.columns is not None else table  # the judges and category asked
    games: list[GameRecord] = list(ranked.records)
    report = Report(
        logs=list(logs),
        notes=[result.summary(), *result.notes()],
        boards=_boards(plain, styled, note, options.ranking),
        models=_models(games, costs),
        costs=costs,
        positions=judge_bias.position_analysis(ranked),
        judge_checks=plain.judge_checks,
        agreement=judge_bias.judges_agreement(games)
        if len({g["judge"] for g in games}) > 1
        else None,
        length=_length(table, plain),
        longer=judge_bias.longer_answer_preference(ranked),
        power=power.power_per_judge(
            games, replace(options.ranking, style_control=None), options.delta
        ),
        disputed=[],
        n_disputed=0,
        coverage=_coverage(games),
        options=options,
    )
    report.flags = read.flags or {}
    from inspect_arenahard.logs.card_items import card_items

    report.evaluators = judge_cards(card_items(logs)[0])
    disputed = _disputed(games)
    report.disputed, report.n_disputed = disputed[:DISPUTED_SHOWN], len(disputed)
    if options.reference:
        report.quality = _quality(plain.overall, options)
    return report


def _rankings(
    games: GameTable, options: RankingOptions
) -> tuple[Ranking, Ranking | None, str | None]:
    """The plain ranking, and the style-controlled one or why it cannot be fitted."""
    plain = rank(games, replace(options, style_control=None))
    try:
        styled = rank(games, replace(options, style_control=options.style_control or DEFAULT_STYLE))
    except ValueError as ex:  # e.g. no style metadata, the mean method: said, not hidden
        return plain, None, str(ex)
    return plain, styled, None


def _boards(
    plain: Ranking, styled: Ranking | None, note: str | None, options: RankingOptions
) -> list[Board]:
    """One board per table with rows (a combined table is empty when no model plays every
    category), its style-controlled twin beside it; the overall table (the combined score when
    the categories have their own baselines) comes first, so the page opens on it."""
    twins = {t.category: t for t in styled.tables} if styled else {}
    features = parse_features(options.style_control or DEFAULT_STYLE) if styled else ()
    boards = [
        Board(t, twins.get(t.category), note, features, _anchors(t, plain), plain.judging(t))
        for t in plain.tables
        if t.rows
    ]
    overall = [b for b in boards if b.plain is plain.overall]
    return overall + [b for b in boards if b.plain is not plain.overall]


def _anchors(table: Leaderboard, ranking: Ranking) -> tuple[Anchor, ...]:
    if table.category != COMBINED:
        return ()
    prompts = prompts_per_category(ranking.battles)
    total = sum(prompts.values())
    return tuple(
        Anchor(str(t.category), t.baseline, prompts.get(str(t.category), 0) / total)
        for t in ranking.tables
        if t.category not in (None, COMBINED)
    )


def _coverage(games: list[GameRecord]) -> PromptCoverage:
    """The prompts each judged model (the baselines aside) was judged on."""
    baselines = {g["baseline"] for g in games}
    prompts: dict[str, set[Any]] = defaultdict(set)
    for g in games:
        if g["model"] not in baselines:
            prompts[g["model"]].add(g["question_id"])
    shared = set.intersection(*prompts.values()) if prompts else set()
    return PromptCoverage({m: len(p) for m, p in sorted(prompts.items())}, len(shared))


def _models(games: list[GameRecord], costs: CostReport) -> list[ModelSummary]:
    from inspect_arenahard.report.dataframes import games_frame
    from inspect_arenahard.stats.battles import STYLE_COLUMNS

    frame = games_frame(games)
    per_model_cost = costs.per_model()
    out = []
    for model, rows in frame.groupby("model", sort=True):
        answers = rows.drop_duplicates(["sample_id", "epoch"])
        style = {
            c: (float(answers[f"model_{c}"].mean()), float(answers[f"baseline_{c}"].mean()))
            for c in STYLE_COLUMNS
        }
        out.append(
            ModelSummary(
                model=str(model),
                prompts=int(answers.shape[0]),
                games=int(rows.shape[0]),
                unparsed=int((~rows.parsed).sum()),
                style=style,
                logs=sorted(set(rows.log.dropna())),
                cost=costs.total_for(str(model)) if str(model) in per_model_cost else None,
            )
        )
    return out


def _length(games: GameTable, plain: Ranking) -> dict[str, dict[str, float]]:
    """Per judge: correlation of model score with mean answer tokens (a length-biased judge correlates)."""
    out = {}
    for judge in sorted({j for j in plain.battles.judge.tolist() if j is not None}):
        # the pooled table, or with one baseline per category (v2.0) the combined one
        table = rank(games, replace(plain.options, judge=[judge], style_control=None)).overall
        tokens = {r.model: r.avg_tokens for r in table.rows if r.avg_tokens is not None}
        out[judge] = judge_bias.correlations({r.model: r.score for r in table.rows}, tokens)
    return out


def _disputed(games: list[GameRecord]) -> list[Disputed]:
    """Every swapped pair whose two games give the model different win/tie/loss outcomes, as
    ``judge_bias.position_analysis`` counts them (both games parsed, positions swapped)."""
    pairs: dict[tuple[Any, ...], list[GameRecord]] = defaultdict(list)
    for g in games:
        pairs[(g.get("log"), g["question_id"], g["epoch"], g["judge"], g["model"])].append(g)
    out = []
    for (log, sample_id, epoch, judge, model), pair in pairs.items():
        if len(pair) != 2 or pair[0]["model_position"] == pair[1]["model_position"]:
            continue
        first, second = sorted(pair, key=lambda g: g["game"])
        a, b = judge_bias.model_outcome(first), judge_bias.model_outcome(second)
        if a is not None and b is not None and (a > 0) - (a < 0) != (b > 0) - (b < 0):
            labels = (first["label"], second["label"])
            out.append(Disputed(str(log), str(sample_id), int(epoch), judge, model, labels, (a, b)))
    return sorted(out, key=lambda d: (d.model, d.judge, d.sample_id))


def _quality(table: Leaderboard, options: Options) -> dict[str, Any]:
    bench = leaderboard_scores("logs", table)
    ref = load_score_table(options.reference)  # type: ignore[arg-type]
    alignment = align_models(
        bench.models,
        ref.models,
        load_name_map(options.name_map) if options.name_map else None,
    )
    if len(alignment.pairs) < MIN_MODELS:  # a note on the page, not an error that stops it
        return {
            "note": f"only {len(alignment.pairs)} model(s) match the reference {options.reference}; need {MIN_MODELS}"
        }
    comparison = compare_with_reference(bench, ref, alignment, options.ranking.ci)
    return {
        "reference": str(options.reference),
        "pairs": alignment.pairs,
        "metrics": comparison.metrics.to_dict(),
    }
