"""What one sample's model calls used, per role and serving model: counted from Inspect's
``model`` events, either by the judge scorer at the end of the sample (written into its score,
so a cost report reads the sample summaries) or by the cost report from a log's events (logs
written before). Prices are not applied here: a call's recorded cost is kept, and the tokens of
calls without one are kept apart so that the report prices them from its own table.

Pure (no Inspect imports): events are plain dicts as a log stores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping

MODEL_ROLE = "model"
"""Role name given to the calls of the model under test (Inspect records no role for them)."""


@dataclass
class CallCounts:
    """Calls and tokens of one role served by one model. ``cached_*``: calls replayed from
    Inspect's cache (they cost nothing); ``unrecorded_*``: tokens of the live calls that carry no
    recorded cost (the report prices them)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    recorded_cost: float = 0.0
    recorded_cost_calls: int = 0
    unrecorded_input_tokens: int = 0
    unrecorded_output_tokens: int = 0
    cached_calls: int = 0
    cached_input_tokens: int = 0
    cached_output_tokens: int = 0

    def add_event(self, event: Mapping[str, Any]) -> None:
        """Count one ``model`` event (input tokens include prompt-cache reads and writes)."""
        tokens = (event.get("output") or {}).get("usage") or {}
        input_tokens = (
            int(tokens.get("input_tokens") or 0)
            + int(tokens.get("input_tokens_cache_read") or 0)
            + int(tokens.get("input_tokens_cache_write") or 0)
        )
        output_tokens = int(tokens.get("output_tokens") or 0)
        if event.get("cache") == "read":
            self.cached_calls += 1
            self.cached_input_tokens += input_tokens
            self.cached_output_tokens += output_tokens
            return
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if tokens.get("total_cost") is not None:
            self.recorded_cost += float(tokens["total_cost"])
            self.recorded_cost_calls += 1
        else:
            self.unrecorded_input_tokens += input_tokens
            self.unrecorded_output_tokens += output_tokens

    def __iadd__(self, other: CallCounts) -> CallCounts:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    def row(self) -> list[int | float]:
        """The counts as one JSON list, in field order (compact: summaries keep keys < 1 KB)."""
        return [getattr(self, f.name) for f in fields(self)]

    @classmethod
    def from_row(cls, row: Any) -> CallCounts:
        """Counts from ``row`` (``CallCounts.row``); a ``ValueError`` when it is not one."""
        if not isinstance(row, list) or len(row) != _FIELDS:
            raise ValueError(f"expected a list of {_FIELDS} counts, got {row!r}")
        calls, inputs, outputs, cost, *rest = row
        return cls(int(calls), int(inputs), int(outputs), float(cost), *map(int, rest))


_FIELDS = len(fields(CallCounts))


@dataclass(frozen=True)
class SampleUsage:
    """Every model call of one sample: role → serving model → counts (an imported judgment:
    none)."""

    roles: Mapping[str, Mapping[str, CallCounts]] = field(default_factory=dict)

    def metadata(self) -> dict[str, dict[str, list[int | float]]]:
        """The JSON entry of the score metadata."""
        return {
            role: {model: counts.row() for model, counts in sorted(models.items())}
            for role, models in sorted(self.roles.items())
        }

    @classmethod
    def parse(cls, raw: Any, where: str) -> SampleUsage | None:
        """The usage of a score's ``usage`` entry (None when absent: a log written before it),
        or one ``ValueError`` naming ``where``."""
        if raw is None:
            return None
        try:
            return cls(
                {
                    str(role): {str(m): CallCounts.from_row(row) for m, row in models.items()}
                    for role, models in raw.items()
                }
            )
        except (AttributeError, TypeError, ValueError) as ex:
            raise ValueError(f"{where}: field 'usage' is malformed ({ex})") from None


def sample_usage(events: Iterable[Mapping[str, Any]]) -> SampleUsage:
    """The usage of a sample's events (plain dicts; those that are not ``model`` events are
    passed over)."""
    roles: dict[str, dict[str, CallCounts]] = {}
    for event in events:
        if event.get("event") == "model":
            role = event.get("role") or MODEL_ROLE
            served = str(event.get("model"))
            roles.setdefault(role, {}).setdefault(served, CallCounts()).add_event(event)
    return SampleUsage(roles)
