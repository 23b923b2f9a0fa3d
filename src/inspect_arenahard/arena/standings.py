"""Tournament report: ranking with intervals, ranking history, Spearman against a reference
ranking, committee agreement before/after discussion, and everything excluded, counted."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from inspect_arenahard.arena.ratings import Ratings
from inspect_arenahard.arena.tournament import Tournament
from inspect_arenahard.judging.committee import discussion_agreement
from inspect_arenahard.report.score_table_files import load_name_map, load_score_table
from inspect_arenahard.stats.game_record import GameScore
from inspect_arenahard.stats.quality import rank_correlations
from inspect_arenahard.stats.score_tables import align_models

BATTLE_SCORER = "autoarena_committee"


@dataclass(frozen=True)
class Correlation:
    """Spearman ρ and Kendall τ between tournament Elo and a reference score, on shared models."""

    reference: str
    rho: float
    tau: float
    pairs: list[tuple[str, str]]
    only_tournament: list[str]
    only_reference_count: int


@dataclass
class TournamentReport:
    """What ``arenahard tournament report`` prints: ratings, their history, counts, checks."""

    ratings: Ratings
    history: list[tuple[str, list[str]]]
    """(stage, ranking after it)."""
    pairings: int
    battles: int
    unscored: int
    """Battles without a committee verdict (excluded from the ratings)."""
    truncated_turns: int
    incomplete_turns: int
    agreement: dict[str, float]
    notes: list[str] = field(default_factory=list)
    correlation: Correlation | None = None

    def record(self) -> dict[str, Any]:
        """JSON-safe form (NaN agreement becomes null) for ``--json``."""
        corr = self.correlation
        return {
            "ratings": self.ratings.record(),
            "history": [{"stage": s, "ranking": r} for s, r in self.history],
            "pairings": self.pairings,
            "battles": self.battles,
            "unscored": self.unscored,
            "truncated_turns": self.truncated_turns,
            "incomplete_turns": self.incomplete_turns,
            "agreement": {k: None if math.isnan(v) else v for k, v in self.agreement.items()},
            "notes": self.notes,
            "correlation": None if corr is None else {
                "reference": corr.reference, "spearman": corr.rho, "kendall": corr.tau, "pairs": corr.pairs,
                "only_tournament": corr.only_tournament, "only_reference_count": corr.only_reference_count,
            },
        }  # fmt: skip


def battle_metadata(paths: Iterable[str | Path]) -> list[GameScore]:
    """Score metadata of every battle sample in ``paths`` (no games for an unscored one)."""
    from inspect_ai.log import read_eval_log_sample

    from inspect_arenahard.logs.reader import THINNED, find_score, raw_summaries

    found = []
    for path in map(str, paths):
        for summary in raw_summaries(path):
            score = find_score(summary.get("scores"), BATTLE_SCORER)
            metadata = (score or {}).get("metadata") or {}
            if any(isinstance(v, str) and v.startswith(THINNED) for v in metadata.values()):
                full = read_eval_log_sample(path, id=summary["id"], epoch=summary["epoch"])
                metadata = getattr(find_score(full.scores, BATTLE_SCORER), "metadata", None) or {}
            where = f"{path}: sample {summary['id']}: score metadata"
            found.append(GameScore.parse(metadata, where))
    return found


def correlate(
    ratings: Ratings, reference: str | Path, name_map: Mapping[str, str] | None = None
) -> Correlation:
    """Spearman/Kendall of Elo against a reference table (CSV or bootstrap JSONL)."""
    table = load_score_table(reference)
    alignment = align_models(ratings.ranking(), table.models, name_map)
    elo = {r.model: r.elo for r in ratings.rows}
    rho, tau = rank_correlations(
        [elo[m] for m, _ in alignment.pairs], [table.entries[r].score for _, r in alignment.pairs]
    )
    return Correlation(
        str(reference),
        rho,
        tau,
        alignment.pairs,
        alignment.only_benchmark,
        len(alignment.only_reference),
    )


def tournament_report(
    tournament: Tournament, reference: str | Path | None = None, name_map: str | Path | None = None
) -> TournamentReport:
    """Everything ``format_report`` prints, from the state and the pairing logs."""
    from inspect_arenahard.logs.reader import read_games

    paths = tournament.log_paths()
    items = battle_metadata(paths)
    committee = [g for m in items for g in (m.committee or {}).get("games", [])]
    battle = [m.battle or {} for m in items]
    ratings = tournament.refit()
    report = TournamentReport(
        ratings=ratings,
        history=[
            (s.name, Ratings.from_record(s.ratings).ranking())
            for s in tournament.state.stages
            if s.ratings
        ],
        pairings=sum(len(s.pairings) for s in tournament.state.stages),
        battles=len(items),
        unscored=sum(1 for m in items if not any(g.parsed for g in m.games)),
        truncated_turns=sum(len(b.get("truncated_turns", [])) for b in battle),
        incomplete_turns=sum(len(b.get("incomplete_turns", [])) for b in battle),
        agreement=discussion_agreement(committee),
        notes=read_games(paths).notes() if paths else [],
    )
    pending = [p for s in tournament.state.stages for p in s.pairings if p.log is None]
    if pending:
        report.notes.append(
            f"{len(pending)} planned pairings have not finished (run the tournament again to resume)"
        )
    if reference is not None:
        report.correlation = correlate(
            ratings, reference, load_name_map(name_map) if name_map else None
        )
    return report


def _num(value: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def format_report(report: TournamentReport) -> str:
    """The report as plain text: the rating table, then history, agreement and correlation."""
    lines = [f"{'rank':>4}  {'model':<40} {'elo':>7} {'95% CI':>17} {'battles':>8} {'excluded':>8}"]
    for i, r in enumerate(report.ratings.rows, 1):
        lines.append(
            f"{i:>4}  {r.model:<40} {r.elo:>7.1f} {f'{r.lower:.1f}..{r.upper:.1f}':>17} {r.battles:>8} {r.excluded:>8}"
        )
    lines.append(
        f"\nElo anchored at {report.ratings.anchor} = 1000; Bradley–Terry over battles plus "
        f"{report.ratings.prior_ties} prior tie(s) per prior neighbour pair."
        + (f" {report.ratings.interval}." if report.ratings.interval else "")
    )
    lines.append(
        f"{report.pairings} pairings, {report.battles} battles ({report.unscored} without a committee verdict, "
        f"excluded); {report.truncated_turns} turns cut to their length limit, {report.incomplete_turns} turns missing a required action."
    )
    a = report.agreement
    if a.get("items"):
        lines.append(
            f"Committee agreement over {int(a['items'])} battles: before discussion {_num(a['agreement_before'])} "
            f"(κ {_num(a['kappa_before'])}), after {_num(a['agreement_after'])} (κ {_num(a['kappa_after'])}); "
            f"unanimous {_num(a['unanimous_before'])} → {_num(a['unanimous_after'])}."
        )
    if report.history:
        lines.append("\nRanking after each stage:")
        lines += [f"  {stage}: {' > '.join(ranking)}" for stage, ranking in report.history]
    c = report.correlation
    if c is not None:
        lines.append(
            f"\nAgainst {c.reference}: Spearman {_num(c.rho)}, Kendall {_num(c.tau)} over {len(c.pairs)} models"
            + (
                f"; not in the reference: {', '.join(c.only_tournament)}"
                if c.only_tournament
                else ""
            )
        )
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines)
