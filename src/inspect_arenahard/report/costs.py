"""What a run cost: calls, tokens and dollars per role, from the model events in the logs.

Every model call Inspect makes is a ``model`` event carrying its role (``judge``, ``baseline``,
``committee``, ``opponent``, ``annotator`` …; none for the model under test, reported here as
``model``), its token usage and, when Inspect knew the model's price, its cost. Calls replayed
from Inspect's cache (``cache: read``) are counted apart: they cost nothing. A call without a
recorded cost is priced from a table of list prices (``PRICES``, overridable with a file in the
format of Inspect's ``--model-cost-config``); a call that neither covers is counted as unpriced,
never as free. Calls made for canary games (``inspect_arenahard.evaluate.canaries``) are
counted under their role with `` (canaries)`` appended: a fixed cost per run, never cached.

The events are counted once, into ``inspect_arenahard.stats.sample_usage.SampleUsage``: by the
judge scorer at the end of each sample (written into its score, so a report reads the sample
summaries of logs whose header says so) or, for logs written before, from each sample's events.
Prices are applied here, from the recorded costs and the table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orjson import loads  # as the log reader: ~3× faster than json

from inspect_arenahard.stats.game_record import is_canary
from inspect_arenahard.stats.sample_usage import CallCounts, SampleUsage, sample_usage

if TYPE_CHECKING:
    from inspect_arenahard.logs.reader import LogGames, ScoredSample

CANARY_ROLE_SUFFIX = " (canaries)"
"""Appended to the role of calls made for canary games (``judge (canaries)``)."""

PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-4-1106-preview": (10.00, 30.00),
    "gpt-4": (30.00, 60.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o3-mini": (1.10, 4.40),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-3-opus": (15.00, 75.00),
    "claude-3-haiku": (0.25, 1.25),
    "gemini-1.5-pro": (1.25, 5.00),
    "gemini-1.5-flash": (0.075, 0.30),
    "gemini-2.0-flash": (0.10, 0.40),
}
"""USD per million (input, output) tokens: published list prices (2024–25). Prompt-cache reads
and writes are billed at the input rate here (an upper bound); pass your own table for others."""


def price_for(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The longest price-table key that begins the model's bare name (``openai/gpt-4o-mini`` → ``gpt-4o-mini``)."""
    bare = model.split("/")[-1]
    keys = [k for k in prices if model == k or bare == k or bare.startswith(k)]
    return prices[max(keys, key=len)] if keys else None


def read_prices(path: str | Path) -> dict[str, tuple[float, float]]:
    """A price table from YAML/JSON: ``{model: {input: $/M, output: $/M}}`` (Inspect's
    ``--model-cost-config`` format) or ``{model: [input, output]}``."""
    import yaml

    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"price table not found: {path}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping of model name to prices")
    table = {}
    for model, value in raw.items():
        try:
            pair = (value["input"], value["output"]) if isinstance(value, dict) else tuple(value)
            table[str(model)] = (float(pair[0]), float(pair[1]))
        except (KeyError, TypeError, ValueError, IndexError):
            raise ValueError(
                f"{path}: {model}: expected {{input: <$/M tokens>, output: <$/M tokens>}}, got {value!r}"
            ) from None
    return table


@dataclass
class Usage:
    """Calls and tokens of one role (or a sum over roles).

    ``input_tokens`` include prompt-cache reads and writes; ``cached_*`` are calls replayed from
    Inspect's cache, which cost nothing. ``cost`` sums recorded and priced costs; ``unpriced_calls``
    had neither (so ``cost`` is a lower bound whenever it is non-zero)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    recorded_cost_calls: int = 0
    unpriced_calls: int = 0
    cached_calls: int = 0
    cached_input_tokens: int = 0
    cached_output_tokens: int = 0

    def __iadd__(self, other: Usage) -> Usage:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)
        return self

    @property
    def known_cost(self) -> float | None:
        """Dollars, or None when no call could be priced."""
        return self.cost if self.calls > self.unpriced_calls or self.calls == 0 else None


@dataclass
class RunCost:
    """Usage of one log, keyed by role then by the model that served the calls."""

    path: str
    model: str
    roles: dict[str, dict[str, Usage]] = field(default_factory=dict)
    judged_samples: int = 0
    """Samples answered and judged (adaptive runs only; 0 otherwise)."""
    skipped_samples: int = 0
    """Samples adaptive judging did not need (``inspect_arenahard.evaluate.adaptive``)."""

    def by_role(self) -> dict[str, Usage]:
        """Usage per role, summed over the models that served it."""
        return {role: _sum(models.values()) for role, models in self.roles.items()}

    def saved(self) -> dict[str, Usage]:
        """What the skipped samples would have cost, per role: the mean usage of a judged sample
        (live and cached calls alike, as a fresh run pays for both) times the skipped count.
        An estimate: skipped prompts are a random draw of the same benchmark."""
        if not self.skipped_samples or not self.judged_samples:
            return {}
        scale = self.skipped_samples / self.judged_samples
        out = {}
        for role, usage in self.by_role().items():
            calls = usage.calls + usage.cached_calls
            out[role] = Usage(
                calls=round(calls * scale),
                input_tokens=round((usage.input_tokens + usage.cached_input_tokens) * scale),
                output_tokens=round((usage.output_tokens + usage.cached_output_tokens) * scale),
                cost=usage.cost / max(usage.calls, 1) * calls * scale,
                unpriced_calls=round(usage.unpriced_calls / max(usage.calls, 1) * calls * scale),
            )
        return out


@dataclass
class CostReport:
    """Usage of the runs a ranking used, plus what superseded re-runs spent."""

    runs: list[RunCost] = field(default_factory=list)
    superseded: list[RunCost] = field(default_factory=list)

    def per_model(self) -> dict[str, dict[str, Usage]]:
        """Per model under test: usage per role over its runs (judges and baselines included)."""
        out: dict[str, dict[str, Usage]] = defaultdict(lambda: defaultdict(Usage))
        for run in self.runs:
            for role, usage in run.by_role().items():
                out[run.model][role] += usage
        return {model: dict(roles) for model, roles in out.items()}

    def by_role(self, runs: Iterable[RunCost] | None = None) -> dict[str, Usage]:
        """Usage per role over ``runs`` (default: the runs kept)."""
        out: dict[str, Usage] = defaultdict(Usage)
        for run in self.runs if runs is None else runs:
            for role, usage in run.by_role().items():
                out[role] += usage
        return dict(out)

    def by_served_model(self) -> dict[tuple[str, str], Usage]:
        """(role, serving model) → usage over all runs kept."""
        out: dict[tuple[str, str], Usage] = defaultdict(Usage)
        for run in self.runs:
            for role, models in run.roles.items():
                for model, usage in models.items():
                    out[(role, model)] += usage
        return dict(out)

    def total(self) -> Usage:
        """Usage of every role in the runs kept."""
        return _sum(self.by_role().values())

    def total_for(self, model: str) -> Usage:
        """All roles' usage in the runs of one model under test."""
        return _sum(self.per_model().get(model, {}).values())

    def saved_by_role(self, model: str | None = None) -> dict[str, Usage]:
        """Estimated usage adaptive judging did not spend (``RunCost.saved``), per role, over
        the runs kept (of one model under test, or all)."""
        out: dict[str, Usage] = defaultdict(Usage)
        for run in self.runs:
            if model is None or run.model == model:
                for role, usage in run.saved().items():
                    out[role] += usage
        return dict(out)

    def record(self, model: str) -> dict[str, Any]:
        """Flat columns for a leaderboard record (JSON/CSV): totals, then per role, then (adaptive
        runs) the estimated ``saved_cost`` and ``saved_judge_calls``."""
        roles = self.per_model().get(model, {})
        columns = usage_columns(_sum(roles.values()), roles)
        saved = self.saved_by_role(model)
        if saved:
            total = _sum(saved.values())
            columns["saved_cost"] = None if total.known_cost is None else round(total.cost, 6)
            columns["saved_judge_calls"] = saved.get("judge", Usage()).calls
        return columns

    def summary(self) -> dict[str, Any]:
        """Everything, as JSON-ready dicts."""
        return {
            "total": _usage_dict(self.total()),
            "by_role": {role: _usage_dict(u) for role, u in sorted(self.by_role().items())},
            "by_model": {
                m: {r: _usage_dict(u) for r, u in sorted(roles.items())}
                for m, roles in sorted(self.per_model().items())
            },
            "by_served_model": [
                {"role": r, "model": m, **_usage_dict(u)}
                for (r, m), u in sorted(self.by_served_model().items())
            ],
            "superseded_runs": {
                "runs": len(self.superseded),
                **_usage_dict(_sum(self.by_role(self.superseded).values())),
            },
            "saved_by_stopping": {
                "skipped_samples": sum(run.skipped_samples for run in self.runs),
                "by_role": {r: _usage_dict(u) for r, u in sorted(self.saved_by_role().items())},
            },
        }


def _sum(usages: Iterable[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total += usage
    return total


def _usage_dict(usage: Usage) -> dict[str, Any]:
    return asdict(usage) | {"cost": None if usage.known_cost is None else round(usage.cost, 6)}


def usage_columns(total: Usage, roles: Mapping[str, Usage]) -> dict[str, Any]:
    """``cost``, ``calls``, ``cached_calls``, ``input_tokens``, ``output_tokens``, ``unpriced_calls``
    in total, then ``<role>_cost`` … for each role (flat, for CSV)."""

    def cols(prefix: str, u: Usage) -> dict[str, Any]:
        return {
            f"{prefix}cost": None if u.known_cost is None else round(u.cost, 6),
            f"{prefix}calls": u.calls,
            f"{prefix}cached_calls": u.cached_calls,
            f"{prefix}input_tokens": u.input_tokens,
            f"{prefix}output_tokens": u.output_tokens,
        }

    out = cols("", total) | {"unpriced_calls": total.unpriced_calls}
    for role in sorted(roles):
        out |= cols(f"{role}_", roles[role])
    return out


def format_cost(usage: Usage) -> str:
    """``$1.23``, ``≥$1.23`` when some calls are unpriced, ``-`` when none is priced."""
    if usage.known_cost is None:
        return "-"
    amount = (
        f"${usage.cost:,.2f}" if usage.cost >= 0.01 or usage.cost == 0 else f"${usage.cost:.4f}"
    )
    return ("≥" if usage.unpriced_calls else "") + amount


def format_costs(report: CostReport) -> str:
    """Plain-text table of usage per role (totals over the runs kept)."""
    rows = [("role", "model", "calls", "cached", "input tok", "output tok", "cost")]
    for (role, model), u in sorted(report.by_served_model().items()):
        rows.append(
            (
                role,
                model,
                str(u.calls),
                str(u.cached_calls),
                f"{u.input_tokens:,}",
                f"{u.output_tokens:,}",
                format_cost(u),
            )
        )
    total = report.total()
    rows.append(
        (
            "total",
            "",
            str(total.calls),
            str(total.cached_calls),
            f"{total.input_tokens:,}",
            f"{total.output_tokens:,}",
            format_cost(total),
        )
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["cost (cached calls are replays from Inspect's cache and cost nothing)"]
    lines += [
        "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    if total.unpriced_calls:
        unpriced = sorted({m for (_, m), u in report.by_served_model().items() if u.unpriced_calls})
        lines.append(
            f"{total.unpriced_calls} calls have no recorded cost and no price ({', '.join(unpriced)}); pass --prices FILE"
        )
    saved = report.saved_by_role()
    if saved:
        total_saved = _sum(saved.values())
        skipped = sum(run.skipped_samples for run in report.runs)
        judge_calls = saved.get("judge", Usage()).calls
        lines.append(
            f"adaptive judging skipped {skipped} samples: about {judge_calls} judge calls and "
            f"{total_saved.calls} calls in all not spent, {format_cost(total_saved)} saved "
            "(the judged samples' mean usage per sample, times the skipped ones)"
        )
    if report.superseded:
        old = _sum(report.by_role(report.superseded).values())
        lines.append(
            f"superseded re-runs ({len(report.superseded)}) also spent {format_cost(old)} on {old.calls} calls (not in the totals)"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- reading

Tally = dict[str, dict[str, CallCounts]]
"""Role → serving model → call counts, before pricing."""


def _add_usage(tally: Tally, usage: SampleUsage, canary: bool = False) -> None:
    """Add one sample's usage (a canary's under its role with ``CANARY_ROLE_SUFFIX``: a judge's
    fixed cost per run, shown on its own line)."""
    for role, models in usage.roles.items():
        key = role + (CANARY_ROLE_SUFFIX if canary else "")
        for served, counts in models.items():
            total = tally.setdefault(key, {}).setdefault(served, CallCounts())
            total += counts  # in place: a fresh total per role and model, never the sample's


def priced(counts: CallCounts, model: str, prices: Mapping[str, tuple[float, float]]) -> Usage:
    """The usage of ``model``'s calls: recorded costs, plus the other calls priced from
    ``prices`` (or counted as unpriced when the table has no price for ``model``)."""
    price = price_for(model, prices)
    cost = counts.recorded_cost
    unpriced = counts.calls - counts.recorded_cost_calls
    if price is not None:
        cost += (
            counts.unrecorded_input_tokens * price[0] + counts.unrecorded_output_tokens * price[1]
        ) / 1e6
        unpriced = 0
    return Usage(
        calls=counts.calls,
        input_tokens=counts.input_tokens,
        output_tokens=counts.output_tokens,
        cost=cost,
        recorded_cost_calls=counts.recorded_cost_calls,
        unpriced_calls=unpriced,
        cached_calls=counts.cached_calls,
        cached_input_tokens=counts.cached_input_tokens,
        cached_output_tokens=counts.cached_output_tokens,
    )


def _priced_roles(
    tally: Tally, prices: Mapping[str, tuple[float, float]]
) -> dict[str, dict[str, Usage]]:
    return {
        role: {served: priced(counts, served, prices) for served, counts in models.items()}
        for role, models in tally.items()
    }


def run_cost(path: str, model: str, prices: Mapping[str, tuple[float, float]] = PRICES) -> RunCost:
    """Usage per role and serving model over every model event of one log."""
    tally: Tally = {}
    for event, canary in sample_model_events(path):
        _add_usage(tally, sample_usage([event]), canary)
    return RunCost(path=path, model=model, roles=_priced_roles(tally, prices))


def model_events(path: str) -> Iterable[dict[str, Any]]:
    """The ``model`` events of every sample of a log, as plain dicts (``.eval`` read as raw JSON)."""
    for event, _ in sample_model_events(path):
        yield event


def sample_model_events(path: str) -> Iterable[tuple[dict[str, Any], bool]]:
    """(``model`` event, whether its sample is a canary) for every sample of a log."""
    from inspect_arenahard.files.storage import open_archive

    if path.endswith(".eval"):
        with open_archive(path) as archive:
            for name in archive.namelist():
                if name.startswith("samples/") and name.endswith(".json"):
                    raw = archive.read(name)
                    if (
                        b'"event":"model"' not in raw
                    ):  # no model call (e.g. imported judgments): skip the parse
                        continue
                    try:
                        sample = loads(raw)
                    except (
                        ValueError
                    ):  # NaN scores (unscored samples) are valid to Python's parser only
                        sample = json.loads(raw)
                    canary = is_canary(sample.get("metadata"))
                    for event in sample.get("events") or []:
                        if event.get("event") == "model":
                            yield event, canary
        return
    from inspect_ai.log import read_eval_log

    for sample in read_eval_log(path).samples or []:
        for event in sample.events:
            if event.event == "model":
                yield (
                    json.loads(event.model_dump_json(exclude_none=True)),
                    is_canary(sample.metadata),
                )


@dataclass
class UsageReader:
    """Usage per log, taken from the read of the logs that gives the games
    (``inspect_arenahard.logs.reader.SampleReader``), so costs need no read of their own: from
    the usage each judge score recorded where every sample has one, else from the model events
    of each full sample."""

    prices: Mapping[str, tuple[float, float]] = field(default_factory=lambda: PRICES)
    tally_by_log: dict[str, Tally] = field(default_factory=dict)

    _incomplete: set[str] = field(default_factory=set)

    def scored(self, path: str, sample: ScoredSample) -> None:
        """Count the usage recorded in one sample's score; a sample without a judge score that
        recorded it drops the log's count (a skipped sample made no call), and the log's full
        samples are read instead."""
        if path in self._incomplete:
            return
        score = sample.score
        if score is None or (score.usage is None and score.skipped is None):
            self._incomplete.add(path)
            self.tally_by_log.pop(path, None)
            return
        tally = self.tally_by_log.setdefault(path, {})
        if score.usage is not None:
            _add_usage(tally, score.usage, score.canary)

    def scored_all(self, path: str) -> bool:
        """Whether every sample of the log recorded its usage (else nothing of it is counted)."""
        if path in self._incomplete:
            return False
        self.tally_by_log.setdefault(path, {})
        return True

    def __call__(self, path: str, sample: dict[str, Any]) -> None:
        """Count one sample's model calls."""
        tally = self.tally_by_log.setdefault(path, {})
        _add_usage(
            tally, sample_usage(sample.get("events") or []), is_canary(sample.get("metadata"))
        )

    def report(self, result: LogGames) -> CostReport:
        """Usage of the runs ``result`` ranks (those with a game no newer run re-judged), and of
        the re-runs it set aside entirely."""
        report = CostReport()
        for run in result.kept_runs:
            cost = self._run_cost(run.path, run.model)
            if run.adaptive is not None:
                cost.judged_samples, cost.skipped_samples = run.samples, run.skipped_samples
            report.runs.append(cost)
        report.superseded = [self._run_cost(old.path, old.model) for old, _ in result.superseded]
        return report

    def _run_cost(self, path: str, model: str) -> RunCost:
        roles = _priced_roles(self.tally_by_log.get(path, {}), self.prices)
        return RunCost(path=path, model=model, roles=roles)


def log_costs(
    paths: Sequence[str | Path], prices: Mapping[str, tuple[float, float]] | None = None
) -> CostReport:
    """Usage of the judge runs under ``paths`` that a leaderboard uses (those with at least one
    game no newer run re-judged), and of the re-runs it set aside entirely (one read per log)."""
    from inspect_arenahard.logs.reader import read_games

    usage = UsageReader(PRICES if prices is None else {**PRICES, **prices})
    return usage.report(read_games(paths, usage))
