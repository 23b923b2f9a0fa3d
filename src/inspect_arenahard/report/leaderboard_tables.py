"""Leaderboard output: plain-text tables, JSON/CSV records and a forest-plot PNG.

Records are ``{model, score, lower, upper, n, avg_tokens, excluded, excluded_unparsed,
excluded_partners, excluded_self, ci_method}`` (percent against the baseline; ``n`` in games;
``excluded`` the games left out, then split into unparsed verdicts, their parsed partners under
the pair rule and games of a model against itself; ``ci_method`` the interval: ``sandwich`` or
``official``); when several tables are written together each record starts with its ``category``
(``"all"`` for the pooled table). Style-controlled records add ``style_control`` (the features)
and ``style_anchor``, and in JSON ``style_coefficients`` (each feature's log-odds per SD with its
CI), so a style-controlled table can never pass for a plain one; an official bootstrap of one-step
refits adds ``bootstrap_refits: "one-step"``. Callers add per-model columns
(``extra`` in records, ``columns`` in tables): ``arenahard audit``'s ``flags`` and, with ``--cost``,
the cost columns of ``inspect_arenahard.report.costs.usage_columns``.

Tables ranked from judge logs also say who judged whom (``judging``, from
``inspect_arenahard.stats.ranking.Ranking.judgings``): records gain ``judges`` (judge → games),
``judge_flags``, ``self_judged``, ``comparable_group``, ``shared_judge_share`` and
``interval_meaningful``; printed tables gain a ``judged by`` column, a ``judge flags`` column when
a row has one, and, when the judges split the models into groups that share no judge, a ``group``
column with ranks within each group.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_arenahard.files import outputs
from inspect_arenahard.stats.bt import DEGENERATE_TIE
from inspect_arenahard.stats.estimates import Leaderboard
from inspect_arenahard.stats.judge_coverage import ModelJudging, TableJudging
from inspect_arenahard.stats.style_control import ANCHOR_MEANING

POOLED = "all"
"""Category label of the table that pools every category."""


Extra = Mapping[str, Mapping[str, Any]]
"""Model → fields added to its records (e.g. ``flags``, cost); models missing get none."""
TableExtra = Mapping[str | None, Extra]
"""Table category → fields added to the records of that table only (e.g. the calibrated scores,
which belong to the overall table and not to each category's)."""
Columns = Mapping[str, Mapping[str, str]]
"""Column name → model → cell text, added to printed tables; models missing show ``-``."""
Judging = Mapping[str | None, TableJudging]
"""A table's category → who judged its rows (tables missing have no judge names)."""


def records(
    tables: Sequence[Leaderboard],
    extra: Extra | None = None,
    coefficients: bool = False,
    judging: Judging | None = None,
    table_extra: TableExtra | None = None,
) -> list[dict[str, Any]]:
    """Rows of all tables as flat records; non-finite numbers become None (valid JSON).

    ``extra`` adds fields per model after the leaderboard's own, in every table; ``table_extra``
    adds fields to one table's rows only; ``coefficients`` adds each style-controlled record's
    ``style_coefficients`` (nested: JSON only); ``judging`` each row's judges and judge flags.
    """
    out = []
    for table in tables:
        style = _style_fields(table, coefficients)
        rows_judging = _rows_judging(table, judging)
        own = (table_extra or {}).get(table.category, {})
        for row in table.rows:
            record = {k: _finite(v) for k, v in row.record().items()} | style
            record["ci_method"] = table.ci_method
            if table.one_step:  # the official bootstrap's rounds are one-step refits
                record["bootstrap_refits"] = "one-step"
            if row.model in rows_judging:
                record |= rows_judging[row.model].record()
            record |= (extra or {}).get(row.model, {})
            record |= own.get(row.model, {})
            out.append(
                {"category": table.category or POOLED, **record} if len(tables) > 1 else record
            )
    return out


def _rows_judging(table: Leaderboard, judging: Judging | None) -> dict[str, ModelJudging]:
    found = (judging or {}).get(table.category)
    return found.rows if found is not None else {}


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _style_fields(table: Leaderboard, coefficients: bool) -> dict[str, Any]:
    if not table.style:
        return {}
    fields: dict[str, Any] = {
        "style_control": ",".join(c.name for c in table.style),
        "style_anchor": table.style_anchor,
    }
    if coefficients:
        fields["style_coefficients"] = {
            c.name: {k: _finite(getattr(c, k)) for k in ("value", "lower", "upper")}
            for c in table.style
        }
    return fields


def style_label(table: Leaderboard) -> str | None:
    """``style-controlled (length, header; official anchor)``, or None for a plain table."""
    if not table.style:
        return None
    return (
        f"style-controlled ({', '.join(c.name for c in table.style)}; {table.style_anchor} anchor)"
    )


def write_json(
    path: str | Path,
    tables: Sequence[Leaderboard],
    extra: Extra | None = None,
    judging: Judging | None = None,
    table_extra: TableExtra | None = None,
) -> None:
    """The records with their style coefficients, as JSON; announced with ``wrote``."""
    outputs.write_json(
        path, records(tables, extra, coefficients=True, judging=judging, table_extra=table_extra)
    )


def write_csv(
    path: str | Path,
    tables: Sequence[Leaderboard],
    extra: Extra | None = None,
    judging: Judging | None = None,
    table_extra: TableExtra | None = None,
) -> None:
    """The records as CSV (lists joined with ``;``, mappings as ``key=value;…``); announced
    with ``wrote``."""
    rows = [
        {k: _csv_cell(v) for k, v in r.items()}
        for r in records(tables, extra, judging=judging, table_extra=table_extra)
    ]
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        fields = list(dict.fromkeys(k for row in rows for k in row)) or [
            "model"
        ]  # columns may differ per table/model
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    outputs.wrote(path)


def _csv_cell(value: Any) -> Any:
    if isinstance(value, list):
        return ";".join(map(str, value))
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items())
    return value


def judged_by(row: ModelJudging, judging: TableJudging) -> str:
    """A compact ``judged by`` cell: ``gpt-4o 258``, or ``all 3 judges`` for a row every judge
    of a pooled table scored."""
    if len(judging.judges) > 1 and set(row.judges) == set(judging.judges):
        return f"all {len(judging.judges)} judges"
    return ", ".join(f"{j} {n}" for j, n in row.judges.items()) or "-"


def judging_columns(table: Leaderboard, judging: Judging | None) -> dict[str, dict[str, str]]:
    """The printed ``group`` (split judges only), ``judged by`` and (when any row has one)
    ``judge flags`` columns of a table."""
    found = (judging or {}).get(table.category)
    if found is None:
        return {}
    columns: dict[str, dict[str, str]] = {}
    if found.split:
        columns["group"] = {
            m: "all" if r.group is None else str(r.group) for m, r in found.rows.items()
        }
    columns["judged by"] = {m: judged_by(r, found) for m, r in found.rows.items()}
    flags = {m: r.flag_cell() for m, r in found.rows.items()}
    if any(flags.values()):
        columns["judge flags"] = flags
    return columns


def format_table(
    table: Leaderboard, columns: Columns | None = None, judging: Judging | None = None
) -> str:
    """One table with its heading, style coefficients and notes; ``columns`` adds text columns
    (name → model → cell, e.g. ``flags``, ``cost``), ``judging`` who judged each row (and, when
    the judges split the models, ranks within each group)."""
    found = (judging or {}).get(table.category)
    pct = f"{table.ci * 100:g}%"
    heading = [
        f"category: {table.category or POOLED}",
        f"baseline: {table.baseline}",
        f"method: {table.method}",
        table.interval,
    ]
    if table.style:
        heading.append(f"{style_label(table)}: {ANCHOR_MEANING[str(table.style_anchor)]}")
    if table.judges:
        heading.append(
            f"judge{'s pooled' if len(table.judges) > 1 else ''}: {', '.join(table.judges)}"
        )
    columns = {**(columns or {}), **judging_columns(table, judging)}
    header = ("rank", "model", "score", "lower", "upper", "n", "avg tokens", "excluded", *columns)
    rows = list(table.rows)
    ranks = {row.model: str(i) for i, row in enumerate(rows, 1)}
    if found is not None and found.split:  # never one rank order across groups
        within = found.group_ranks(row.model for row in rows)
        ranks = {row.model: str(within.get(row.model, "-")) for row in rows}
        rows.sort(key=lambda row: group_order(found, row.model))
    body = [
        (
            ranks[row.model],
            row.model + (" (baseline)" if row.model == table.baseline else ""),
            f"{row.score:.1f}",
            f"{row.lower:.1f}",
            f"{row.upper:.1f}",
            str(row.n),
            "-" if row.avg_tokens is None else f"{row.avg_tokens:.0f}",
            str(row.excluded),
            *(cells.get(row.model) or "-" for cells in columns.values()),
        )
        for row in rows
    ]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [" | ".join(heading)]
    for cells in [header, *body]:
        lines.append(
            "  ".join(
                c.ljust(w)
                if header[i] in ("model", "flags", "judged by", "judge flags")
                else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths))
            ).rstrip()
        )
    if table.style:
        coefs = ", ".join(
            f"{c.name} {c.value:+.3f} [{c.lower:+.3f}, {c.upper:+.3f}]" for c in table.style
        )
        lines.append(f"style coefficients (log-odds per SD, {pct} CI): {coefs}")
    if table.ci_method == "sandwich" and table.clusters < 2:
        lines.append(
            "no interval: a prompt-clustered interval needs games on at least 2 prompts "
            "(--ci-method official gives the row bootstrap, which ignores prompt-to-prompt variation)"
        )
    if table.exclusions.total:
        lines.append(exclusions_note(table))
    if table.unranked:
        lines.append(
            "not ranked, every game excluded: "
            + ", ".join(f"{m} ({n})" for m, n in table.unranked.items())
        )
    if table.degenerate:
        lines.append(
            f"note: some models won or lost all their battles; ties of {DEGENERATE_TIE} battles were added "
            "to one-sided pairs to keep the scores finite"
        )
    if found is not None:
        lines += found.notes()
    return "\n".join(lines)


def group_order(judging: TableJudging, model: str) -> int:
    """Anchors (in every group) first, then each group's rows together, best first."""
    row = judging.rows.get(model)
    return 0 if row is None or row.group is None else row.group


def exclusions_note(table: Leaderboard) -> str:
    """The games a table left out, split by why, and the rule that decided about partners."""
    rule = (
        "pair rule: a judgment counts only with both games"
        if table.unparsed_rule == "pair"
        else "game rule: partners of unparsed games kept"
    )
    return f"{table.exclusions.describe()} ({rule})"


def format_tables(
    tables: Sequence[Leaderboard], columns: Columns | None = None, judging: Judging | None = None
) -> str:
    """Several tables as text, one after another."""
    return "\n\n".join(format_table(t, columns, judging) for t in tables)


def plot_forest(path: str | Path, tables: Sequence[Leaderboard]) -> None:
    """A figure (format from the extension) with one panel per table: scores and CIs, best on top, the baseline in its own colour."""
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
        ax.set_yticks(
            list(ys), [r.model + (" (baseline)" if r.model == table.baseline else "") for r in rows]
        )
        ax.set_xlabel(f"score vs {table.baseline} (%), {table.interval}", fontsize=8)
        ax.set_title(
            f"{table.category or POOLED} ({table.method})"
            + (f"\n{style_label(table)}" if table.style else "")
        )
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    outputs.save_figure(fig, path)
