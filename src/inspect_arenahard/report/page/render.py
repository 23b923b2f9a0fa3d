"""The report as one self-contained HTML page: inline CSS, inline SVG plots and a few lines of
vanilla JavaScript (tabs, sortable tables). No network at view time; it opens from disk.

Script errors are written into the page (``#errors``) as well as the console, so a headless
browser's ``--dump-dom`` shows whether the page ran cleanly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from inspect_arenahard.files.outputs import versions
from inspect_arenahard.report.costs import format_cost
from inspect_arenahard.report.leaderboard_tables import (
    exclusions_note,
    group_order,
    judging_columns,
    records,
)
from inspect_arenahard.report.page.sections import Board, Report
from inspect_arenahard.stats import power, shares
from inspect_arenahard.stats.estimates import Leaderboard, Row
from inspect_arenahard.stats.judge_card import ItemShare
from inspect_arenahard.stats.judge_coverage import TableJudging

PLAIN, STYLED, BASELINE = "#1f77b4", "#e6550d", "#d62728"
MIN_CORRELATION_POINTS = 5
"""Models a judge's score–length correlation needs to be shown (fewer: only their number)."""
OUTCOME = {2: "much better", 1: "better", 0: "tie", -1: "worse", -2: "much worse"}
"""A game's verdict from the model's side (``judge_bias.model_outcome``), whatever its position."""


def _num(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _cell(value: Any, digits: int = 1, sort: Any = None, title: str | None = None) -> str:
    """A table cell with a numeric sort key (``data-v``) where the value has one."""
    key = sort if sort is not None else value
    attrs = ""
    if isinstance(key, (int, float)) and not (isinstance(key, float) and not math.isfinite(key)):
        attrs += f' data-v="{key}"'
    if title:
        attrs += f' title="{escape(title)}"'
    if isinstance(value, str) and "data-v" not in attrs and value != "–":
        attrs += ' class="text"'
    text = value if isinstance(value, str) else _num(value, digits)
    return f"<td{attrs}>{escape(text)}</td>"


def _table(headers: Sequence[str], rows: Iterable[str], cls: str = "sortable") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    return f'<div class="scroll"><table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


# ---------------------------------------------------------------- forest plot


def forest_svg(board: Board) -> str:
    """Scores with CIs, best on top: plain (circles) and style-controlled (diamonds) per model."""
    plain, styled = board.plain, board.styled
    rows = list(plain.rows)
    styled_rows = {r.model: r for r in styled.rows} if styled else {}
    values = [
        v
        for r in [*rows, *styled_rows.values()]
        for v in (r.lower, r.upper, r.score)
        if math.isfinite(v)
    ]
    lo, hi = min([*values, 50.0]), max([*values, 50.0])
    pad = max(2.0, (hi - lo) * 0.05)
    lo, hi = max(0.0, lo - pad), min(100.0, hi + pad)
    label_w = min(300, 40 + 7 * max(len(_label(r.model, plain)) for r in rows))
    plot_w, row_h, top = 520, 26, 28
    width, height = label_w + plot_w + 20, top + row_h * len(rows) + 40

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="forest" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="forest plot of scores, {escape(plain.category or "all")}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
    ]
    step = _tick_step(hi - lo)
    tick = math.ceil(lo / step) * step
    while tick <= hi + 1e-9:
        parts.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 6}" y2="{height - 30}" stroke="#e5e5e5"/>'
        )
        parts.append(
            f'<text x="{x(tick):.1f}" y="{height - 14}" text-anchor="middle" class="tick">{tick:g}</text>'
        )
        tick += step
    parts.append(
        f'<line x1="{x(50):.1f}" x2="{x(50):.1f}" y1="{top - 6}" y2="{height - 30}" stroke="{BASELINE}" stroke-dasharray="4 3"/>'
    )
    for i, row in enumerate(rows):
        y = top + row_h * i + 8
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 4}" text-anchor="end" class="label">{escape(_label(row.model, plain))}</text>'
        )
        colour = BASELINE if row.model == plain.baseline else PLAIN
        parts.append(
            _whisker(
                x,
                row.lower,
                row.upper,
                row.score,
                y,
                colour,
                "circle",
                f"{row.model}: {row.score:.1f} [{row.lower:.1f}, {row.upper:.1f}]",
            )
        )
        s = styled_rows.get(row.model)
        if s is not None:
            parts.append(
                _whisker(
                    x,
                    s.lower,
                    s.upper,
                    s.score,
                    y + 9,
                    STYLED,
                    "diamond",
                    f"{row.model} (style-controlled): {s.score:.1f} [{s.lower:.1f}, {s.upper:.1f}]",
                )
            )
    legend_y, at = 14, label_w
    parts.append(
        f'<circle cx="{at + 6}" cy="{legend_y - 4}" r="4" fill="{PLAIN}"/><text x="{at + 14}" y="{legend_y}" class="tick">score</text>'
    )
    at += 64
    if styled:
        caption = f"style-controlled ({', '.join(board.style_features)} held equal)"
        parts.append(
            f'<path d="{_diamond(at + 6, legend_y - 4)}" fill="{STYLED}"/><text x="{at + 14}" y="{legend_y}" class="tick">{escape(caption)}</text>'
        )
        at += 24 + 6 * len(caption)
    parts.append(
        f'<line x1="{at}" x2="{at + 14}" y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="{BASELINE}" stroke-dasharray="4 3"/>'
        f'<text x="{at + 18}" y="{legend_y}" class="tick">baseline = 50</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _whisker(
    x: Any, lower: float, upper: float, score: float, y: float, colour: str, shape: str, title: str
) -> str:
    if not all(math.isfinite(v) for v in (lower, upper, score)):
        return ""
    mark = (
        f'<circle cx="{x(score):.1f}" cy="{y}" r="4.5" fill="{colour}"/>'
        if shape == "circle"
        else f'<path d="{_diamond(x(score), y)}" fill="{colour}"/>'
    )
    return (
        f'<g><title>{escape(title)}</title><line x1="{x(lower):.1f}" x2="{x(upper):.1f}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="2"/>'
        f'<line x1="{x(lower):.1f}" x2="{x(lower):.1f}" y1="{y - 3}" y2="{y + 3}" stroke="{colour}"/>'
        f'<line x1="{x(upper):.1f}" x2="{x(upper):.1f}" y1="{y - 3}" y2="{y + 3}" stroke="{colour}"/>{mark}</g>'
    )


def _diamond(cx: float, cy: float, r: float = 5.0) -> str:
    return f"M{cx:.1f},{cy - r:.1f} L{cx + r:.1f},{cy:.1f} L{cx:.1f},{cy + r:.1f} L{cx - r:.1f},{cy:.1f} Z"


def _tick_step(span: float) -> float:
    for step in (1, 2, 5, 10, 20, 25):
        if span / step <= 10:
            return float(step)
    return 25.0


def _label(model: str, table: Leaderboard) -> str:
    return model + (" (baseline)" if model == table.baseline else "")


# ---------------------------------------------------------------- sections


def _board_panel(board: Board, report: Report, active: bool) -> str:
    plain, styled = board.plain, board.styled
    name = plain.category or "all"
    pct = f"{plain.ci * 100:g}%"
    styled_rows = {r.model: r for r in styled.rows} if styled else {}
    costs = {m.model: m.cost for m in report.models}
    flags = {r.model: report.flags.get(r.model) for r in plain.rows}
    show_flags = any(flags.values())
    judging = board.judging
    judge_cells = judging_columns(plain, {plain.category: judging} if judging else None)
    order, ranks = _board_order(plain, judging)
    headers = [
        "rank",
        "model",
        "score",
        f"{pct} CI",
        "style-controlled",
        f"{pct} CI (sc)",
        "battles",
        "avg tokens",
        "excluded",
        "cost",
    ]
    headers += ["flags"] if show_flags else []
    headers += list(judge_cells)
    rows = []
    for r in order:
        rank = ranks.get(r.model)
        s = styled_rows.get(r.model)
        cost = costs.get(r.model)
        cells = [
            _cell(rank if rank is not None else "–"),
            f'<td class="model">{escape(_label(r.model, plain))}</td>',
            _cell(r.score),
            _cell(f"{_num(r.lower)} – {_num(r.upper)}", sort=r.upper - r.lower),
            _cell(s.score if s else None),
            _cell(
                f"{_num(s.lower)} – {_num(s.upper)}" if s else "–",
                sort=(s.upper - s.lower) if s else None,
            ),
            _cell(r.n),
            _cell(r.avg_tokens, 0),
            _cell(r.excluded, title=r.exclusions.describe() if r.excluded else None),
            _cell(
                format_cost(cost) if cost else "–",
                sort=cost.cost if cost and cost.known_cost is not None else None,
            ),
        ]
        if show_flags:
            cells.append(_cell(", ".join(map(str, flags[r.model] or [])) or "–"))
        cells += [_cell(column.get(r.model) or "–") for column in judge_cells.values()]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    meta = [
        _anchor_line(board),
        f"method: {escape(plain.method)}",
        escape(plain.interval),
        f"judge{'s pooled' if len(plain.judges) > 1 else ''}: {escape(', '.join(plain.judges))}",
    ]
    notes = []
    if styled and styled.style:
        coefs = ", ".join(
            f"{escape(c.name)} {c.value:+.3f} [{c.lower:+.3f}, {c.upper:+.3f}]"
            for c in styled.style
        )
        notes.append(
            f"Style coefficients (log-odds per SD of the feature difference, {pct} CI): {coefs}. "
            "The style-controlled score is the win-rate against the anchor once these features are held equal."
        )
    elif board.styled_note:
        notes.append(f"Style control not shown: {escape(board.styled_note)}")
    if plain.exclusions.total:
        notes.append(escape(exclusions_note(plain)) + ".")
    if plain.unranked:
        notes.append(
            "Not ranked, every game excluded: "
            + escape(", ".join(f"{m} ({n})" for m, n in plain.unranked.items()))
        )
    if plain.degenerate:
        notes.append(
            "Some models won or lost all their battles; small pseudo-ties keep their scores finite."
        )
    if judging is not None:
        notes += [escape(n[0].upper() + n[1:] + ".") for n in judging.notes()]
    return (
        f'<section class="panel" data-group="board" data-tab="{escape(name)}"{"" if active else " hidden"}>'
        f'<p class="meta">{" · ".join(meta)}</p><div class="plot">{forest_svg(board)}</div>'
        f"{_table(headers, rows)}{''.join(f'<p class=note>{n}</p>' for n in notes)}</section>"
    )


def _board_order(
    table: Leaderboard, judging: TableJudging | None
) -> tuple[list[Row], dict[str, int]]:
    """Rows and ranks as the text table gives them: by score, or, when the judges split the
    models into groups that share no judge, each group together with ranks within it (anchors
    first, unranked)."""
    rows = list(table.rows)
    if judging is None or not judging.split:
        return rows, {r.model: i for i, r in enumerate(rows, 1)}
    ranks = judging.group_ranks(r.model for r in rows)
    return sorted(rows, key=lambda r: group_order(judging, r.model)), ranks


def _anchor_line(board: Board) -> str:
    """Which model scores 50: the table's baseline, or each category's for the combined score."""
    if not board.anchors:
        return f"anchor: <b>{escape(board.plain.baseline)}</b> = 50"
    each = "; ".join(
        f"{escape(a.category)}: <b>{escape(a.baseline)}</b> ({100 * a.share:.1f}% of prompts)"
        for a in board.anchors
    )
    return f"anchors (= 50), each category's own baseline, weighted by its prompts: {each}"


def _coverage_note(report: Report) -> str:
    """Said when models were judged on different prompt sets: n per model and the overlap."""
    coverage = report.coverage
    if not coverage.uneven:
        return ""
    each = ", ".join(f"{escape(m)} {n}" for m, n in coverage.per_model.items())
    return (
        f'<p class="note warn">The models were judged on different prompt sets: prompts per model: '
        f"{each}; {coverage.shared} prompts shared by all {len(coverage.per_model)} models. "
        "A score is a win-rate on the model's own prompts, so scores on different prompts compare "
        "less directly than their intervals suggest.</p>"
    )


def _leaderboards(report: Report) -> str:
    names = [b.plain.category or "all" for b in report.boards]
    tabs = "".join(
        f'<button class="tab{" active" if i == 0 else ""}" data-group="board" data-tab="{escape(n)}">{escape(n)}</button>'
        for i, n in enumerate(names)
    )
    panels = "".join(_board_panel(b, report, i == 0) for i, b in enumerate(report.boards))
    return (
        f'<h2 id="leaderboard">Leaderboard</h2>{_coverage_note(report)}<nav class="tabs">{tabs}</nav>{panels}'
        f'<script type="application/json" id="leaderboard-data">{leaderboard_data(report)}</script>'
    )


def leaderboard_data(report: Report) -> str:
    """The boards' rows as JSON, the records ``arenahard leaderboard --json`` writes (plain and
    style-controlled tables), safe inside a ``<script>`` element."""
    judging = {b.plain.category: b.judging for b in report.boards if b.judging is not None}
    data = {
        "plain": records([b.plain for b in report.boards], coefficients=True, judging=judging),
        "styled": records(
            [b.styled for b in report.boards if b.styled], coefficients=True, judging=judging
        ),
    }
    return json.dumps(data).replace("</", "<\\/")


def _models(report: Report) -> str:
    headers = ["model", "prompts", "games", "unparsed", "tokens (baseline)", "headers (baseline)",
               "list items (baseline)", "bold (baseline)", "cost", "logs"]  # fmt: skip
    rows = []
    for m in report.models:
        cells = [
            f'<td class="model">{escape(m.model)}</td>',
            _cell(m.prompts),
            _cell(m.games),
            _cell(m.unparsed),
        ]
        for feature in ("tokens", "headers", "lists", "bold"):
            mine, base = m.style[feature]
            digits = 0 if feature == "tokens" else 2
            cells.append(
                _cell(
                    f"{_num(mine, digits)} ({_num(base, digits)})",
                    sort=mine if math.isfinite(mine) else None,
                )
            )
        cells.append(
            _cell(format_cost(m.cost) if m.cost else "–", sort=m.cost.cost if m.cost else None)
        )
        cells.append(
            "<td class=text>"
            + "<br>".join(
                f'<code title="{escape(p)}">{escape(Path(p).name)}</code>' for p in m.logs
            )
            + "</td>"
        )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<h2 id="models">Models</h2><p class="note">Mean per answer on the prompts each model was judged on; '
        "the baseline's columns are its answers to the same prompts (markdown: headers, list items, bold spans).</p>"
        + _table(headers, rows)
    )


def _costs(report: Report) -> str:
    costs = report.costs
    rows = []
    for (role, model), u in sorted(costs.by_served_model().items()):
        rows.append("<tr>" + "".join([
            f"<td class=text>{escape(role)}</td>", f'<td class="model">{escape(model)}</td>', _cell(u.calls), _cell(u.cached_calls),
            _cell(u.input_tokens), _cell(u.output_tokens), _cell(format_cost(u), sort=u.cost),
        ]) + "</tr>")  # fmt: skip
    total = costs.total()
    rows.append("<tr class=total>" + "".join([
        "<td>total</td><td></td>", _cell(total.calls), _cell(total.cached_calls), _cell(total.input_tokens),
        _cell(total.output_tokens), _cell(format_cost(total), sort=total.cost),
    ]) + "</tr>")  # fmt: skip
    notes = [
        "Calls replayed from Inspect's cache are counted apart: they cost nothing. Costs are Inspect's recorded "
        "cost where it had one, else list prices (override with <code>--prices FILE</code>)."
    ]
    if total.unpriced_calls:
        notes.append(
            f"{total.unpriced_calls} calls have neither a recorded cost nor a price: the total is a lower bound."
        )
    if not total.calls and not total.cached_calls:
        notes.append("These logs record no model calls (e.g. imported judgments): nothing to cost.")
    if costs.superseded:
        notes.append(f"{len(costs.superseded)} superseded re-runs are not in these totals.")
    return (
        '<h2 id="cost">Cost</h2>'
        + _table(
            ["role", "model", "calls", "cached calls", "input tokens", "output tokens", "cost"],
            rows,
        )
        + "".join(f"<p class=note>{n}</p>" for n in notes)
    )


def _judges(report: Report) -> str:
    rows = []
    for p in report.positions:
        length = report.length.get(p.judge, {})
        longer = report.longer.get(p.judge, {})
        rows.append("<tr>" + "".join([
            f'<td class="model">{escape(p.judge)}</td>', _cell(p.n_games), _cell(p.n_unparsed),
            _cell(100 * p.a_win_rate), _cell(100 * p.b_win_rate), _cell(100 * p.tie_rate), _cell(p.position_p_value, 3),
            _cell(100 * p.consistency), _cell(100 * p.consistency_strict),
            _correlation_cell(length), _cell(100 * longer["longer_wins"] if "longer_wins" in longer else None),
        ]) + "</tr>")  # fmt: skip
    out = ['<h2 id="judges">Judges</h2>', _table(
        ["judge", "games", "unparsed", "A wins %", "B wins %", "ties %", "p (A = B)", "position-consistent %",
         "consistent incl. strength %", "Spearman(score, length)", "longer answer wins %"], rows)]  # fmt: skip
    out.append(
        '<p class="note">Position consistency: share of prompts whose two position-swapped games (both parsed) '
        "give the model the same outcome (win, tie or loss); the other prompts are listed under "
        '<a href="#disputed">disputed games</a>. Spearman(score, length): rank correlation of model score with '
        f"mean answer tokens under that judge, over its models (n); left out below {MIN_CORRELATION_POINTS} models.</p>"
    )
    out.append(_judge_checks(report))
    if report.agreement is not None:
        fine, coarse = report.agreement
        shared = [(f, c) for f, c in zip(fine.pairs, coarse.pairs) if f.n_items]
        rows = ["<tr>" + "".join([
            f"<td class=text>{escape(f.judge_a)}</td>", f"<td class=text>{escape(f.judge_b)}</td>", _cell(f.n_items), _cell(100 * f.agreement),
            _cell(f.kappa, 3), _cell(100 * c.agreement), _cell(c.kappa, 3)]) + "</tr>"
            for f, c in shared]  # fmt: skip
        out.append("<h3>Judge–judge agreement (same games)</h3>")
        if not shared:
            out.append('<p class="note">No game was judged by two of these judges.</p>')
        else:
            out.append(
                _table(
                    [
                        "judge A",
                        "judge B",
                        "games",
                        "agreement % (5-point)",
                        "Cohen κ",
                        "agreement % (W/T/L)",
                        "κ (W/T/L)",
                    ],
                    rows,
                )
            )
    return "".join(out)


def _judge_checks(report: Report) -> str:
    """Each judge's information checks with their prompt-clustered intervals, and its flags."""
    rows = []
    for c in report.judge_checks:
        figures = [
            _cell(_share(f), sort=f.value) for f in (c.consistency, c.position_a, c.ties, c.longer)
        ]
        flags = "; ".join(c.reasons()) or "–"
        rows.append(
            f'<tr><td class="model">{escape(c.judge)}</td>{"".join(figures)}{_cell(flags)}</tr>'
        )
    pct = f"{report.options.ranking.ci * 100:g}%"
    return (
        "<h3>Judge checks</h3>"
        + _table(["judge", "position-consistent", "position A wins", "ties", "longer answer wins", "judge flags"], rows)
        + f'<p class="note">Each figure with its prompt-clustered {pct} interval and its count (pairs or games). '
        "A judge is flagged when its verdicts carry (almost) no information: one position wins both swapped "
        "games, one label throughout, swapped games agreeing less than a coin's would, or the longer answer "
        "always winning. Rows resting only on flagged judges have intervals that measure nothing.</p>"
    )  # fmt: skip


def _share(share: shares.Share) -> str:
    return share.text() if share.n else "–"


def _evaluators(report: Report) -> str:
    """Report cards of judges against human labels (``arenahard_judgecard`` logs), if any."""
    if not report.evaluators:
        return ""

    def share(s: ItemShare) -> str:
        if s.value is None:
            return _cell(None)
        return _cell(100 * s.value, title=f"{100 * s.lower:.1f}–{100 * s.upper:.1f}% (n={s.n})")  # type: ignore[operator]

    rows = ["<tr>" + "".join([
        f'<td class="model">{escape(c.judge)}</td>', _cell(c.items), share(c.accuracy), share(c.human_ceiling),
        share(c.position_consistency), share(c.tie_rate), share(c.longer_preference), share(c.always_longer),
    ]) + "</tr>" for c in report.evaluators]  # fmt: skip
    return "".join(
        [
            "<h3>Evaluators against human labels</h3>",
            _table(
                [
                    "judge",
                    "pairs",
                    "accuracy %",
                    "human–human %",
                    "position-consistent %",
                    "ties %",
                    "prefers longer %",
                    "always-longer baseline %",
                ],
                rows,
            ),  # fmt: skip
            '<p class="note">From arenahard_judgecard logs: accuracy against the human majority (hover for the '
            "95% interval), the annotators' own agreement where a set has several, and the accuracy of always "
            "choosing the longer answer on the same pairs.</p>",
        ]
    )


def _correlation_cell(correlation: dict[str, float]) -> str:
    """The rank correlation with its number of models; below ``MIN_CORRELATION_POINTS`` only n."""
    n = int(correlation.get("n", 0))
    value = correlation.get("spearman")
    if n < MIN_CORRELATION_POINTS or value is None or not math.isfinite(value):
        return _cell(f"– (n = {n})", title=f"fewer than {MIN_CORRELATION_POINTS} models: not shown")
    return _cell(f"{value:.2f} (n = {n})", sort=value)


def _quality_and_power(report: Report) -> str:
    out = ['<h2 id="quality">Benchmark quality</h2>']
    q = report.quality
    if q is None:
        out.append(
            '<p class="note">Pass <code>--reference FILE</code> (a leaderboard CSV or bootstrap JSONL, e.g. '
            "Chatbot Arena's) for separability, agreement, Brier score and rank correlations.</p>"
        )
    elif "note" in q:
        out.append(f'<p class="note">{escape(q["note"])}</p>')
    else:
        m = q["metrics"]
        rows = [
            f"<tr><td>{escape(k.replace('_', ' '))}</td>{_cell(v, 3)}</tr>" for k, v in m.items()
        ]
        out.append(
            f'<p class="meta">reference: <code>{escape(q["reference"])}</code>, {len(q["pairs"])} models matched</p>'
        )
        out.append(_table(["metric", "value"], rows, cls="plain"))
    out.append(f'<h2 id="power">Power: prompts needed for Δ = {report.options.delta:g} points</h2>')
    rows = []
    for judge, r in report.power.items():
        rows.append("<tr>" + "".join([
            f'<td class="model">{escape(judge)}</td>', _prompts_cell(r), _cell(r.typical_sd, 3),
            _cell(r.prompts_needed_ci_overlap), _cell(r.prompts_needed_paired if r.n_pairs else None), _cell(r.min_delta_ci_overlap),
            _cell(r.min_delta_paired if r.n_pairs else None), _cell(f"{r.pairs_separated_paired}/{r.n_pairs}", sort=r.pairs_separated_paired),
        ]) + "</tr>")  # fmt: skip
    out.append(
        '<p class="note">Prompts now: the median over the judge\'s measured models of the prompts each was '
        "scored on (as <code>arenahard power</code> prints it), each model's count in brackets. Paired: prompts "
        "needed for a paired test between two models to separate a "
        f"difference of {report.options.delta:g} points; needs at least two models judged by the judge.</p>"
    )
    out.append(_table(["judge", "prompts now (median per model)", "typical per-prompt sd", "prompts needed (non-overlapping CIs)",
                       "prompts needed (paired)", "smallest Δ now (CIs)", "smallest Δ now (paired)", "pairs separated (paired)"], rows))  # fmt: skip
    return "".join(out)


def _prompts_cell(r: power.PowerReport) -> str:
    counts = ", ".join(f"{s.model} {s.n_prompts}" for s in r.models)
    text = f"{r.n_prompts} ({counts})" if len(r.models) > 1 else str(r.n_prompts)
    return _cell(text, sort=r.n_prompts)


def _disputed(report: Report) -> str:
    out = [f'<h2 id="disputed">Disputed games ({report.n_disputed})</h2>',
           '<p class="note">The position-inconsistent prompts: their two position-swapped games give the model '
           "different outcomes (win, tie or loss) under the same judge, so they are what the judges table's "
           "position-consistent % leaves out. Open one with <code>inspect view --log-dir &lt;folder&gt;</code>, pick the log file, then the sample id.</p>"]  # fmt: skip
    rows = [
        "<tr>" + "".join([
            f'<td class="model">{escape(d.model)}</td>', f"<td class=text>{escape(d.judge)}</td>", f"<td class=text><code>{escape(d.sample_id)}</code></td>",
            _cell(d.epoch), f"<td class=text>{escape(' / '.join(str(label) for label in d.labels))}</td>",
            f"<td class=text>{escape(' / '.join(OUTCOME[o] for o in d.outcomes))}</td>",
            f'<td class=text><code title="{escape(d.log)}">{escape(Path(d.log).name)}</code></td>',
        ]) + "</tr>"
        for d in report.disputed
    ]  # fmt: skip
    if rows:
        out.append(
            _table(
                [
                    "model",
                    "judge",
                    "sample id",
                    "epoch",
                    "labels, game 1 / game 2",
                    "for the model",
                    "log",
                ],
                rows,
            )
        )
    if report.n_disputed > len(report.disputed):
        out.append(f'<p class="note">First {len(report.disputed)} shown.</p>')
    return "".join(out)


def render(report: Report) -> str:
    """The whole report as one self-contained HTML page."""
    judges = sorted({j for b in report.boards for j in b.plain.judges})
    notes = "".join(f"<li>{escape(n)}</li>" for n in report.notes) or "<li>none</li>"
    sources = "".join(f"<li><code>{escape(str(p))}</code></li>" for p in report.logs)
    body = "".join([
        "<header><h1>Arena-Hard report</h1>",
        f'<p class="meta">{len(report.models)} models · judges: {escape(", ".join(judges))} · '
        f'generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by {escape(_generator())}</p>',
        '<nav class="toc"><a href="#leaderboard">leaderboard</a><a href="#models">models</a><a href="#cost">cost</a>'
        '<a href="#judges">judges</a><a href="#quality">quality</a><a href="#power">power</a><a href="#disputed">disputed games</a>'
        '<a href="#sources">sources</a></nav></header>',
        '<div id="errors" hidden></div>',
        _leaderboards(report), _models(report), _costs(report), _judges(report), _evaluators(report), _quality_and_power(report), _disputed(report),
        f'<h2 id="sources">Sources</h2><ul>{sources}</ul><h3>Log notes</h3><ul>{notes}</ul>',
    ])  # fmt: skip
    return PAGE.replace("{{GENERATOR}}", escape(_generator(), quote=True)).replace("{{BODY}}", body)


def _generator() -> str:
    """Which code made the page: this package's and Inspect's versions."""
    v = versions()
    return f"inspect_arenahard {v['inspect_arenahard']} (Inspect {v['inspect_ai']})"


def write(report: Report, out: str | Path) -> Path:
    """Write ``index.html`` into the folder ``out``; returns its path."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.html"
    path.write_text(render(report), encoding="utf-8")
    return path


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="{{GENERATOR}}"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arena-Hard report</title>
<script>
(function () {
  function show(text) {
    var box = document.getElementById("errors");
    if (!box) { window.__pendingErrors = (window.__pendingErrors || []).concat([text]); return; }
    box.hidden = false; box.textContent += text + "\\n";
  }
  window.addEventListener("error", function (e) { show("error: " + e.message); });
  var original = console.error;
  console.error = function () { show("console.error: " + Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
})();
</script>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1240px; padding: 16px 24px; color: #222; }
h1 { margin: 0 0 4px; font-size: 24px; } h2 { margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.meta { color: #555; } .note { color: #555; font-size: 13px; max-width: 1000px; }
nav.toc a { margin-right: 14px; color: #1f77b4; text-decoration: none; }
.tabs { display: flex; flex-wrap: wrap; gap: 4px; margin: 8px 0; }
.tab { border: 1px solid #ccc; background: #f5f5f5; padding: 4px 12px; border-radius: 4px 4px 0 0; cursor: pointer; font: inherit; }
.tab.active { background: #1f77b4; color: #fff; border-color: #1f77b4; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 9px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #fafafa; position: sticky; top: 0; white-space: normal; vertical-align: bottom; min-width: 4em; max-width: 11em; }
td.model, td.text { white-space: normal; overflow-wrap: anywhere; max-width: 24em; }
td.model { min-width: 8em; }
@media (max-width: 1000px) { body { padding: 12px; } th, td { padding: 3px 5px; } }
td code { word-break: break-all; }
table.sortable th { cursor: pointer; user-select: none; } table.sortable th:hover { background: #eef4fa; }
th.asc::after { content: " ▲"; } th.desc::after { content: " ▼"; }
td.model, td.text, td:first-child { text-align: left; } tr.total td { font-weight: 600; border-top: 2px solid #ccc; }
.plot, .scroll { overflow-x: auto; max-width: 100%; } svg.forest text { font: 12px system-ui, sans-serif; fill: #333; } svg .tick { font-size: 11px; fill: #666; }
.scroll th:first-child, .scroll td:first-child { position: sticky; left: 0; z-index: 1; background: #fff; }
.scroll th:first-child { z-index: 2; background: #fafafa; }
.meta, .note, li { overflow-wrap: anywhere; } .note.warn { color: #8a5300; }
code { font-size: 12px; background: #f4f4f4; padding: 0 3px; border-radius: 3px; }
#errors { background: #fee; color: #900; padding: 8px; white-space: pre-wrap; }
</style></head>
<body>
{{BODY}}
<script>
(function () {
  (window.__pendingErrors || []).forEach(function (t) { var b = document.getElementById("errors"); b.hidden = false; b.textContent += t + "\\n"; });
  document.querySelectorAll("button.tab").forEach(function (button) {
    button.addEventListener("click", function () {
      var group = button.dataset.group, tab = button.dataset.tab;
      document.querySelectorAll('button.tab[data-group="' + group + '"]').forEach(function (b) { b.classList.toggle("active", b === button); });
      document.querySelectorAll('section.panel[data-group="' + group + '"]').forEach(function (p) { p.hidden = p.dataset.tab !== tab; });
    });
  });
  function key(cell) {
    if (cell.dataset.v !== undefined) return parseFloat(cell.dataset.v);
    return cell.textContent.trim().toLowerCase();
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th, column) {
      th.addEventListener("click", function () {
        var ascending = !th.classList.contains("asc");
        table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(ascending ? "asc" : "desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows).filter(function (r) { return !r.classList.contains("total"); });
        var totals = Array.prototype.slice.call(body.rows).filter(function (r) { return r.classList.contains("total"); });
        rows.sort(function (a, b) {
          var x = key(a.cells[column]), y = key(b.cells[column]);
          var missingX = x === "–" || (typeof x === "number" && isNaN(x)), missingY = y === "–" || (typeof y === "number" && isNaN(y));
          if (missingX !== missingY) return missingX ? 1 : -1;
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.concat(totals).forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("table").forEach(function (table) {  // headers align with their column
    var first = table.tBodies[0] && table.tBodies[0].rows[0];
    if (!first) return;
    table.querySelectorAll("th").forEach(function (th, i) {
      if (first.cells[i]) th.style.textAlign = getComputedStyle(first.cells[i]).textAlign;
    });
  });
  document.body.dataset.ready = "1";
})();
</script>
</body></html>
"""
