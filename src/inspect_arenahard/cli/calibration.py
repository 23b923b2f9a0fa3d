"""``arenahard leaderboard NEW --calibrate-to OLD``: the new judge's scores on the old judge's
scale (``inspect_arenahard.stats.calibration``), with each anchor model's residual."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspect_arenahard.cli.tables import print_table
from inspect_arenahard.errors import UserError

if TYPE_CHECKING:  # the statistics load when the command runs, not when its parser is built
    from inspect_arenahard.stats.calibration import CalibratedRow, Calibration, Scored
    from inspect_arenahard.stats.estimates import Leaderboard
    from inspect_arenahard.stats.ranking import Ranking


def add_calibration_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--calibrate-to",
        nargs="+",
        metavar="OLD_LOG",
        help="put the scores on the scale of the judge(s) of these older logs, fitted on the "
        "models both judged (at least 3; each anchor's residual is printed)",
    )


@dataclass(frozen=True)
class CalibratedTable:
    """The new overall table's rows on the old scale, and the map that put them there."""

    calibration: Calibration
    rows: tuple[CalibratedRow, ...]
    old_judges: tuple[str, ...]

    def fields(self) -> dict[str, dict[str, Any]]:
        """Per model, the fields its JSON/CSV record gains."""
        residuals = {a.model: a.residual for a in self.calibration.anchors}
        return {
            r.model: {
                "calibrated_score": r.score,
                "calibrated_lower": r.lower,
                "calibrated_upper": r.upper,
                **({"anchor_residual": residuals[r.model]} if r.model in residuals else {}),
            }
            for r in self.rows
        }


def _scored(table: Leaderboard) -> dict[str, Scored]:
    from inspect_arenahard.stats.calibration import Scored

    return {
        r.model: Scored(r.score, table.score_covariance(r.model, r.model))
        for r in table.rows
        if r.model != table.baseline
    }


def calibrate(args: argparse.Namespace, ranking: Ranking) -> CalibratedTable:
    """Rank the older logs with the same options and map the new overall table onto them."""
    from inspect_arenahard.logs.ranked_games import read_log_games  # lazy: Inspect is heavy
    from inspect_arenahard.stats.calibration import Scored, fit_calibration
    from inspect_arenahard.stats.ranking import rank

    old_games, _ = read_log_games(args.calibrate_to, pool_settings=args.pool_settings)
    old = rank(old_games, ranking.options).overall
    new = ranking.overall
    try:
        calibration = fit_calibration(_scored(new), _scored(old))
    except ValueError as ex:
        raise UserError(f"--calibrate-to: {ex}") from None
    rows = tuple(
        calibration.apply(r.model, Scored(r.score, new.score_covariance(r.model, r.model)), new.ci)
        for r in new.rows
        if r.model != new.baseline
    )
    return CalibratedTable(calibration, rows, old.judges)


def print_calibrated(table: CalibratedTable, ci: float) -> None:
    """The calibrated scores, then every anchor's residual."""
    c = table.calibration
    judges = ", ".join(table.old_judges) or "the older logs' judges"
    print_table(
        f"On the scale of {judges}: logit(old) = {c.intercept:.3f} + {c.slope:.3f} · logit(new), "
        f"{len(c.anchors)} anchors; {ci * 100:g}% CI with the map's uncertainty",
        ["model", "score (new judge)", "calibrated", "lower", "upper"],
        [[r.model, r.new, r.score, r.lower, r.upper] for r in table.rows],
    )
    print_table(
        "Anchors: old judge's score − calibrated new score (points)",
        ["model", "old", "new", "calibrated", "residual"],
        [[a.model, a.old, a.new, a.mapped, a.residual] for a in c.anchors],
    )
