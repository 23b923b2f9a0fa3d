"""Meta-evaluation statistics over ScaleEval records (pure Python: no Inspect imports).

A record is the score metadata of one ``scaleeval`` sample (built by
``inspect_arenahard.scaleeval.task.item_record``). All its labels are in the item's original
submission order. The reference for an item is the debate's consensus label, or the human
decision for an item that went to review, or none (pending: the item is left out of the
debate-reference tables and counted).

* example-level agreement: the Kronecker delta of a judge's label and the reference, averaged
  over items. A judge that gave no label counts as disagreeing (and is counted as unparsed);
* system-level agreement (per group, e.g. scenario): 1 when the judge's most common label
  equals the reference's, else 0. A tie for most common compares the set of tied labels.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from inspect_arenahard.stats.agreement import agreement_probability

Record = Mapping[str, Any]
Decisions = Mapping[str, str]
"""Human decisions by ``record_key``, in original submission order."""


def record_key(record: Record) -> str:
    """What a human decision is about: the item under one criterion."""
    return f"{record['item_id']}|{record['criterion']}"


@dataclass(frozen=True)
class Vote:
    """One judge's label on one item."""

    role: str
    """``debate``, ``majority`` (multi-judge majority without discussion), ``speaker<k>``
    (a debater's independent verdict), ``evaluator`` or ``self_consistency``."""
    judge: str
    variant: str | None
    label: str | None

    @property
    def name(self) -> str:
        """Display name: the role and model, and the criteria variant unless ``general``."""
        base = self.judge if self.role in ("debate", "majority") else f"{self.role} {self.judge}"
        return base if self.variant in (None, "general") else f"{base} [{self.variant}]"

    @property
    def key(self) -> str:
        """Model-free name for metric keys (one evaluator per run)."""
        return self.role if self.variant in (None, "general") else f"{self.role}[{self.variant}]"


def reference(record: Record, decisions: Decisions | None = None) -> str | None:
    """The debate's consensus label, else a human decision, else None (pending review)."""
    debate = record["debate"]
    if debate["consensus"]:
        return debate["label"]
    return (decisions or {}).get(record_key(record))


def votes(record: Record, decisions: Decisions | None = None) -> list[Vote]:
    """Every judge's label on the item: the debate (once settled: items pending review have
    no debate label and are counted by ``coverage``), its baselines and the evaluator."""
    debate = record["debate"]
    settled = reference(record, decisions)
    found = [] if settled is None else [Vote("debate", "ScaleEval debate", None, settled)]
    found.append(Vote("majority", "multi-judge majority", None, debate["majority_initial"]))
    found += [
        Vote(f"speaker{seat}", name, None, label)
        for seat, (name, label) in enumerate(zip(debate["speakers"], debate["initial"]), start=1)
    ]
    evaluator = record.get("evaluator")
    if evaluator:
        for variant, result in evaluator["variants"].items():
            found.append(Vote("evaluator", evaluator["model"], variant, result["single"]))
            if result["samples"]:
                found.append(
                    Vote("self_consistency", evaluator["model"], variant, result["consistency"])
                )
    return found


def mode(labels: Iterable[str | None]) -> tuple[str, ...]:
    """The most common label(s), sorted; empty when no label was given."""
    counts = Counter(label for label in labels if label is not None)
    if not counts:
        return ()
    top = max(counts.values())
    return tuple(sorted(label for label, n in counts.items() if n == top))


def system_agreement(
    predicted: Sequence[str | None], reference_labels: Sequence[str | None]
) -> float:
    """1.0 when the modes agree, 0.0 when not, nan with no items."""
    if not reference_labels:
        return math.nan
    return float(mode(predicted) == mode(reference_labels))


@dataclass(frozen=True)
class AgreementRow:
    """One judge's agreement with the reference in one group.

    ``example``: share of items whose labels match; ``system``: whether the most common
    labels match.
    """

    group: str
    judge: str
    reference: str
    n: int
    unparsed: int
    example: float
    system: float

    def to_dict(self) -> dict[str, Any]:
        """As a dict, for the JSON outputs."""
        return asdict(self)


Group = Callable[[Record, Vote], str | None]


def agreement_rows(
    records: Iterable[Record],
    against: str,
    group: Group,
    decisions: Decisions | None = None,
    keep: Callable[[Vote], bool] = lambda vote: True,
    name: Callable[[Vote], str] = lambda vote: vote.name,
) -> list[AgreementRow]:
    """Agreement of every judge with the reference (``against`` = ``debate`` or ``gold``) per group.

    Items without a reference label are skipped (count them with ``coverage``).
    """
    cells: dict[tuple[str, str], tuple[list[str | None], list[str]]] = {}
    for record in records:
        ref = reference(record, decisions) if against == "debate" else record.get("gold")
        if ref is None:
            continue
        for vote in votes(record, decisions):
            if (against == "debate" and vote.role == "debate") or not keep(vote):
                continue
            key = group(record, vote)
            if key is None:
                continue
            predicted, refs = cells.setdefault((key, name(vote)), ([], []))
            predicted.append(vote.label)
            refs.append(ref)
    return [
        AgreementRow(
            group=key,
            judge=judge,
            reference=against,
            n=len(refs),
            unparsed=sum(label is None for label in predicted),
            example=agreement_probability(predicted, refs),
            system=system_agreement(predicted, refs),
        )
        for (key, judge), (predicted, refs) in sorted(cells.items())
    ]


def by_scenario(record: Record, vote: Vote) -> str:
    """Group by scenario, falling back to the source for data without scenarios."""
    return str(record.get("scenario") or record["source"])


def by_criterion(record: Record, vote: Vote) -> str:
    """Group by criterion."""
    return str(record["criterion"])


def by_source(record: Record, vote: Vote) -> str:
    """Group by data source."""
    return str(record["source"])


def by_variant(record: Record, vote: Vote) -> str | None:
    """Group by criteria variant; votes without one are left out."""
    return vote.variant


def overall(record: Record, vote: Vote) -> str:
    """One group for everything."""
    return "all"


def coverage(records: Sequence[Record], decisions: Decisions | None = None) -> dict[str, int]:
    """How many items have a reference label and why the others do not."""
    consensus = sum(bool(r["debate"]["consensus"]) for r in records)
    decided = sum(
        1 for r in records if not r["debate"]["consensus"] and reference(r, decisions) is not None
    )
    return {
        "items": len(records),
        "consensus": consensus,
        "human_decided": decided,
        "pending_review": len(records) - consensus - decided,
        "with_gold": sum(r.get("gold") is not None for r in records),
        "with_evaluator": sum(bool(r.get("evaluator")) for r in records),
    }


def report(records: Sequence[Record], decisions: Decisions | None = None) -> dict[str, Any]:
    """All tables: vs debate labels by scenario (paper Table 2), by criterion (Table 4) and by
    criteria variant (Table 5, evaluators only); vs human gold by source, with the baselines."""
    evaluators = lambda vote: vote.role in ("evaluator", "self_consistency")  # noqa: E731
    bare = lambda vote: vote.name if vote.variant is None else f"{vote.role} {vote.judge}"  # noqa: E731
    tables = {
        "debate_by_scenario": agreement_rows(records, "debate", by_scenario, decisions),
        "debate_by_criterion": agreement_rows(records, "debate", by_criterion, decisions),
        "debate_by_variant": agreement_rows(
            records, "debate", by_variant, decisions, keep=evaluators, name=bare
        ),
        "gold_by_source": agreement_rows(records, "gold", by_source, decisions),
        "gold_overall": agreement_rows(records, "gold", overall, decisions),
    }
    return {
        "coverage": coverage(records, decisions),
        "tables": {k: [r.to_dict() for r in v] for k, v in tables.items()},
    }


def summary(records: Sequence[Record], decisions: Decisions | None = None) -> dict[str, float]:
    """Headline numbers (the ``scaleeval`` log metric): coverage shares and each role's overall
    example-level agreement with the debate labels and with gold."""
    counts = coverage(records, decisions)
    n = counts["items"]
    result = {
        "consensus_rate": counts["consensus"] / n if n else math.nan,
        "pending_review": float(counts["pending_review"]),
    }
    for against in ("debate", "gold"):
        for row in agreement_rows(records, against, overall, decisions, name=lambda vote: vote.key):
            result[f"{row.judge}_vs_{against}"] = row.example
    return result
