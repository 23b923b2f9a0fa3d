"""What an adaptive run leaves in its log header, read back: the rule, the anytime-valid interval
and the skip counts, and the one line the leaderboard prints about the run.

Kept apart from ``inspect_arenahard.evaluate.adaptive`` (the solver, metric and skip ledger that
write them) and free of Inspect, so reading logs does not import Inspect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

METRIC = "anytime_interval"
"""Name of the metric whose values the header carries (judged, stopped_at, lower, upper)."""
LEDGER = "arenahard_adaptive"
"""Name of the ``SkipLedger`` in the log header's ``results.early_stopping.manager``."""


def header_adaptive(spec: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any] | None:
    """From a log header read as JSON (``eval`` and ``results``): the rule, the
    ``anytime_interval`` metrics and the ``SkipLedger`` counts (``answered``, ``skipped``,
    ``skipped_by_reason``, ``canaries``), or None for a run without adaptive judging."""
    rule = (spec.get("metadata") or {}).get("adaptive")
    if not isinstance(rule, dict):
        return None
    outcome = {
        m["name"]: m.get("value")
        for s in results.get("scores") or []
        for m in (s.get("metrics") or {}).values()
        if isinstance(m, dict) and m.get("group") == METRIC
    }
    stopping = results.get("early_stopping") or {}
    counts = stopping.get("metadata") if stopping.get("manager") == LEDGER else None
    return {**rule, **outcome, **(counts or {})}


def run_note(path: str, model: str, judged: int, skipped: int, info: Mapping[str, Any]) -> str:
    """How an adaptive run ended: the rule, samples judged and skipped, its anytime-valid
    interval (the one to quote for it: fixed-sample intervals do not cover under stopping)."""
    stopped = info.get("stopped_at")
    fired = isinstance(stopped, (int, float)) and stopped > 0
    rule = ", ".join(
        f"{k}={v}" for k, v in info.items() if k in ("stop_at_ci", "versus", "max_prompts") and v
    )
    level = round(100 * (1 - float(info.get("alpha", 0.05))))
    interval = (
        f"[{info['lower']:.1f}, {info['upper']:.1f}]"
        if "lower" in info and "upper" in info
        else "n/a"
    )
    ending = (
        f"stopped after {stopped:.0f} judged prompts"
        if fired
        else "stopped at max_prompts"
        if skipped
        else "ran to its end"
    )
    return (
        f"adaptive run {path} ({model}; {rule or 'no rule'}): {ending}, {judged} judged samples, "
        f"{skipped} skipped; anytime-valid {level}% interval of its mean points vs the baseline "
        f"{interval}"
    )
