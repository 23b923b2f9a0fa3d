"""Leaderboard output: plain-text tables, JSON/CSV records and a forest-plot PNG.

Records are ``{model, score, lower, upper, n, avg_tokens, excluded}`` (percent against the
baseline); when several tables are written together each record starts with its ``category``
(``"all"`` for the pooled table).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_arenahard.stats.bt import DEGENERATE_TIE
from inspect_arenahard.stats.leaderboard import Leaderboard

POOLED = "all"
"""Category label of the table that pools every category."""


def records(tables: Sequence[Leaderboard]) -> list[dict[str, Any]]:
    """Rows of all tables as flat records; non-finite numbers become None (valid JSON)."""
    out = []
    for table in tables:
        for row in table.rows:
            record = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.record().items()}
            out.append({"category": table.category or POOLED, **record} if len(tables) > 1 else record)
    return out


def write_json(path: str | Path, tables: Sequence[Leaderboard]) -> None:
    Path(path).write_text(json.dumps(records(tables), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def write_csv(path: str | Path, tables: Sequence[Leaderboard]) -> None:
    rows = records(tables)
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["model"])
        writer.writeheader()
        writer.writerows(rows)


def format_table(table: Leaderboard) -> str:
    """One table with its heading, style coefficients and notes."""
    pct = f"{table.ci * 100:g}%"
    heading = [
        f"category: {table.category or POOLED}",
        f"baseline: {table.baseline}",
        f"method: {table.method}",
        f"{pct} CI from {table.rounds} bootstrap rounds" if table.ci_method == "bootstrap"
        else f"{pct} CI: cluster-robust sandwich over {table.clusters} prompts",
    ]
    if table.judges:
        heading.append(f"judge{'s pooled' if len(table.judges) > 1 else ''}: {', '.join(table.judges)}")
    header = ("rank", "model", "score", "lower", "upper", "n", "avg tokens", "excluded")
    body = [
        (
            str(rank),
            row.model + (" (baseline)" if row.model == table.baseline else ""),
            f"{row.score:.1f}",
            f"{row.lower:.1f}",
            f"{row.upper:.1f}",
            str(row.n),
            "-" if row.avg_tokens is None else f"{row.avg_tokens:.0f}",
            str(row.excluded),
        )
        for rank, row in enumerate(table.rows, 1)
    ]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [" | ".join(heading)]
    for cells in [header, *body]:
        lines.append("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))
    if table.style:
        coefs = ", ".join(f"{c.name} {c.value:+.3f} [{c.lower:+.3f}, {c.upper:+.3f}]" for c in table.style)
        lines.append(f"style coefficients (log-odds per SD, {pct} CI): {coefs}")
    if table.excluded_games:
        lines.append(f"{table.excluded_games} games excluded (unparsed verdict, or a model against itself)")
    if table.unranked:
        lines.append("not ranked, every game excluded: " + ", ".join(f"{m} ({n})" for m, n in table.unranked.items()))
    if table.degenerate:
        lines.append(
            f"note: some models won or lost all their battles; ties of {DEGENERATE_TIE} battles were added "
            "to one-sided pairs to keep the scores finite"
        )
    return "\n".join(lines)


def format_report(tables: Sequence[Leaderboard]) -> str:
    return "\n\n".join(format_table(t) for t in tables)


def plot_forest(path: str | Path, tables: Sequence[Leaderboard]) -> None:
    """PNG with one panel per table: scores and CIs, best on top, the baseline in its own colour."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    heights = [max(1.5, 0.3 * len(t.rows) + 1) for t in tables]
    fig = Figure(figsize=(8, sum(heights)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(tables), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, table in zip(axes, tables):
        rows = table.rows[::-1]
        ys = range(len(rows))
        for y, row in zip(ys, rows):
            colour = "tab:red" if row.model == table.baseline else "tab:blue"
            ax.errorbar(
                row.score, y, xerr=[[row.score - row.lower], [row.upper - row.score]],
                fmt="o", color=colour, capsize=3,
            )  # fmt: skip
        ax.axvline(50, color="tab:red", linestyle="--", linewidth=0.8)
        ax.set_yticks(list(ys), [r.model + (" (baseline)" if r.model == table.baseline else "") for r in rows])
        ax.set_xlabel(f"score vs {table.baseline} (%), {table.ci * 100:g}% CI")
        ax.set_title(f"{table.category or POOLED} ({table.method})")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(str(path), format="png", dpi=120)
