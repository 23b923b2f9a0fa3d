"""Pairwise meta-evaluation sets: a question, two submissions, an optional human gold label.

Every loader returns ``PairItem`` with labels in ScaleEval's convention: ``"1"`` (submission
1 is better), ``"2"`` (submission 2 is better), ``"0"`` (neither). Supported files (see
``../shared/data/MANIFEST.md``, section meta_eval):

* LLMBar and its processed sets (MT-Bench human, FairEval, LLMEval²): JSON array of
  ``{input, output_1, output_2, label}``, label 1/2;
* PandaLM ``testset-v1.json``: ``{idx, motivation_app, instruction, input, response1,
  response2, annotator1..3}``, 0 = tie; gold = the annotators' majority;
* Auto-J ``testdata_pairwise.jsonl``: ``{scenario, label, prompt, response 1, response 2}``,
  label 0 = response 1, 1 = response 2, 2 = tie;
* Anthropic HH-RLHF (gzip JSONL ``{chosen, rejected}``): the shared dialogue is the question,
  the two final assistant turns the submissions, gold = chosen;
* plain JSONL ``{question, submission_1, submission_2, label?, id?, scenario?, criterion?}``.

Errors name the file, the record and the field; nothing is dropped without being counted.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from inspect_arenahard.errors import UserError
from inspect_arenahard.files.jsonl import read_json, read_jsonl

VERDICTS = ("1", "2", "0")
"""Submission 1 better, submission 2 better, neither."""
ORDERS = ("12", "21")
"""Submission order as presented: as stored, or swapped."""


def to_original(label: str | None, order: str) -> str | None:
    """A verdict on the presented order in the item's stored order (swapping is its own inverse)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    return {"1": "2", "2": "1"}.get(label, label) if order == "21" and label is not None else label


@dataclass(frozen=True)
class PairItem:
    """One question with two submissions; ``gold`` is the human verdict when known."""

    id: str
    question: str
    submission_1: str
    submission_2: str
    gold: str | None
    source: str
    scenario: str | None = None
    criterion: str | None = None
    annotations: tuple[str, ...] = ()
    """Individual human labels, where the set has several annotators."""


@dataclass
class PairSet:
    """The items of one file and what was noticed while reading it."""

    path: Path
    format: str
    items: list[PairItem] = field(default_factory=list)
    no_gold: int = 0
    """Items kept without a gold label (e.g. annotators with no majority)."""

    def label_counts(self) -> dict[str | None, int]:
        """Items per gold label (None: unlabelled), for the data summary."""
        return dict(Counter(item.gold for item in self.items))


def _text(record: dict[str, Any], name: str, where: str, allow_empty: bool = False) -> str:
    """A text field; with ``allow_empty`` (submissions) a JSON scalar answer such as ``true``
    is taken as its text (PandaLM stores a few one-word answers that way)."""
    if name not in record:
        raise ValueError(f"{where}: missing field {name!r}")
    value = record[name]
    if allow_empty and isinstance(value, (bool, int, float)):
        return json.dumps(value).capitalize() if isinstance(value, bool) else str(value)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ValueError(
            f"{where}: field {name!r} must be a{' non-empty' if not allow_empty else ''} string"
        )
    return value


def _label(value: Any, mapping: dict[Any, str], where: str, name: str) -> str:
    key = value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        key = int(value)
    if key not in mapping:
        raise ValueError(
            f"{where}: field {name!r} is {value!r}; expected one of {', '.join(map(str, mapping))}"
        )
    return mapping[key]


def _json_array(path: Path) -> list[dict[str, Any]]:
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{path}: expected a JSON array of objects")
    return data


def _load_llmbar(path: Path) -> PairSet:
    result = PairSet(path, "llmbar")
    for i, record in enumerate(_json_array(path)):
        where = f"{path}: record {i}"
        result.items.append(
            PairItem(
                id=f"{path.stem}:{i}",
                question=_text(record, "input", where),
                submission_1=_text(record, "output_1", where, allow_empty=True),
                submission_2=_text(record, "output_2", where, allow_empty=True),
                gold=_label(record.get("label"), {1: "1", 2: "2"}, where, "label"),
                source=path.stem,
            )
        )
    return result


def _load_pandalm(path: Path) -> PairSet:
    result = PairSet(path, "pandalm")
    to_verdict = {0: "0", 1: "1", 2: "2"}
    for i, record in enumerate(_json_array(path)):
        where = f"{path}: record {i}"
        votes = tuple(
            _label(record.get(f"annotator{k}"), to_verdict, where, f"annotator{k}")
            for k in (1, 2, 3)
        )
        [(top, count)] = Counter(votes).most_common(1)
        gold = top if count >= 2 else None
        result.no_gold += gold is None
        parts = [
            _text(record, name, where, allow_empty=True).strip()
            for name in ("instruction", "input")
        ]
        question = "\n\n".join(part for part in parts if part)
        if not question:
            raise ValueError(f"{where}: fields 'instruction' and 'input' are both empty")
        result.items.append(
            PairItem(
                id=f"pandalm:{record.get('idx', i)}",
                question=question,
                submission_1=_text(record, "response1", where, allow_empty=True),
                submission_2=_text(record, "response2", where, allow_empty=True),
                gold=gold,
                source="pandalm",
                scenario=record.get("motivation_app"),
                annotations=votes,
            )
        )
    return result


def _load_autoj(path: Path) -> PairSet:
    result = PairSet(path, "autoj")
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        result.items.append(
            PairItem(
                id=f"autoj:{lineno}",
                question=_text(record, "prompt", where),
                submission_1=_text(record, "response 1", where, allow_empty=True),
                submission_2=_text(record, "response 2", where, allow_empty=True),
                gold=_label(record.get("label"), {0: "1", 1: "2", 2: "0"}, where, "label"),
                source="autoj",
                scenario=_text(record, "scenario", where),
            )
        )
    return result


ASSISTANT = "\n\nAssistant:"


def split_dialogues(chosen: str, rejected: str, where: str) -> tuple[str, str, str]:
    """(shared dialogue up to the last common assistant turn, chosen reply, rejected reply)."""
    common = 0
    limit = min(len(chosen), len(rejected))
    while common < limit and chosen[common] == rejected[common]:
        common += 1
    cut = chosen.rfind(ASSISTANT, 0, common)
    if cut < 0:
        raise ValueError(f"{where}: the chosen and rejected dialogues share no assistant turn")
    start = cut + len(ASSISTANT)
    return chosen[:cut].strip(), chosen[start:].strip(), rejected[start:].strip()


def _load_hh_rlhf(path: Path) -> PairSet:
    result = PairSet(path, "hh_rlhf")
    source = f"hh_rlhf:{path.name.split('.')[0]}"
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        question, chosen, rejected = split_dialogues(
            _text(record, "chosen", where), _text(record, "rejected", where), where
        )
        result.items.append(PairItem(f"{source}:{lineno}", question, chosen, rejected, "1", source))
    return result


def _load_plain(path: Path) -> PairSet:
    result = PairSet(path, "jsonl")
    seen: set[str] = set()
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        item_id = str(record.get("id", f"{path.stem}:{lineno}"))
        if item_id in seen:
            raise ValueError(f"{where}: duplicate id {item_id!r}")
        seen.add(item_id)
        label = record.get("label")
        gold = None if label is None else _label(label, {1: "1", 2: "2", 0: "0"}, where, "label")
        result.no_gold += gold is None
        result.items.append(
            PairItem(
                id=item_id,
                question=_text(record, "question", where),
                submission_1=_text(record, "submission_1", where, allow_empty=True),
                submission_2=_text(record, "submission_2", where, allow_empty=True),
                gold=gold,
                source=path.stem,
                scenario=record.get("scenario"),
                criterion=record.get("criterion"),
            )
        )
    return result


LOADERS: dict[str, Callable[[Path], PairSet]] = {
    "llmbar": _load_llmbar,
    "pandalm": _load_pandalm,
    "autoj": _load_autoj,
    "hh_rlhf": _load_hh_rlhf,
    "jsonl": _load_plain,
}


def detect_format(path: Path) -> str:
    """The loader for ``path``, from its first record's fields."""
    if path.name.endswith(".gz"):
        return "hh_rlhf"
    with path.open(encoding="utf-8") as f:
        head = f.read(65536).lstrip()
    if head.startswith("["):
        return "pandalm" if '"annotator1"' in head else "llmbar"
    try:
        _, record = next(read_jsonl(path))
    except (StopIteration, UserError):
        raise ValueError(f"{path}: cannot tell the format (not a JSON array or JSONL)") from None
    if "response 1" in record:
        return "autoj"
    if "submission_1" in record:
        return "jsonl"
    raise ValueError(
        f"{path}: cannot tell the format from fields {sorted(record)}; pass format= one of {', '.join(LOADERS)}"
    )


def load_pairs(path: str | Path, format: str | None = None) -> PairSet:
    """Items of a meta-evaluation file; ``format`` is detected when not given."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"meta-evaluation data not found: {path}")
    name = format or detect_format(path)
    if name not in LOADERS:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(LOADERS)}")
    return LOADERS[name](path)
