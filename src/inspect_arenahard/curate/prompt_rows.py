"""Records → rows of ``ingested.parquet``: the normalisation both ingest engines run.

Field names are detected from a source's first record (``source_fields``) or given; each
part's records become rows with ``part_rows`` (on Ray workers, or in this process), and one
``Sequencer`` per source puts them in order: it numbers records of a source without an id
field, refuses repeated ids naming both records, raises the first bad record's error and applies
``--limit``. Sharing these functions is what makes the engines write the same table.
"""

from __future__ import annotations

import itertools
import pickle
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generator, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspect_arenahard.curate.sources import Located, Part, Source, read_part, source_records
from inspect_arenahard.curate.step_options import FieldMap
from inspect_arenahard.errors import is_user_error

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import IngestOptions

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("source", pa.string()),
        ("source_id", pa.string()),
        ("turns", pa.list_(pa.string())),
        ("label", pa.string()),
        ("language", pa.string()),
    ]
)

ID_FIELDS = ("id", "uid", "question_id", "conversation_id", "conversation_hash", "prompt_id")
TEXT_FIELDS = ("prompt", "instruction", "question", "text", "content", "input")
TURNS_FIELDS = ("turns",)
CONVERSATION_FIELDS = ("conversation", "messages", "conversation_a", "conversations")
LABEL_FIELDS = ("label", "topic", "cluster", "category", "cat")
LANGUAGE_FIELDS = ("language", "lang")
USER_ROLES = ("user", "human")
BATCH_ROWS = 50_000


PRESETS: dict[str, FieldMap] = {
    "lmsys/lmsys-chat-1m": FieldMap(
        id="conversation_id", conversation="conversation", language="language"
    ),
    "lmsys/chatbot_arena_conversations": FieldMap(
        id="question_id", conversation="conversation_a", language="language"
    ),
    "allenai/WildChat": FieldMap(
        id="conversation_hash", conversation="conversation", language="language"
    ),
    "allenai/WildChat-1M": FieldMap(
        id="conversation_hash", conversation="conversation", language="language"
    ),
}
"""Field mappings of the conversation datasets BenchBuilder was built from."""


def _first_present(record: dict[str, Any], names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in record), None)


def resolve_fields(
    record: Any, explicit: FieldMap, preset: FieldMap | None, where: str
) -> FieldMap:
    """The field map for a source: explicit fields, else the preset, else detected from ``record``."""
    if not isinstance(record, dict):
        if isinstance(record, str):
            return FieldMap()
        raise ValueError(
            f"{where}: expected a JSON object or a string, got {type(record).__name__}"
        )
    base = preset or FieldMap()
    if preset is None:
        text = _first_present(record, TEXT_FIELDS)
        turns = None if text else _first_present(record, TURNS_FIELDS)
        conversation = None if text or turns else _first_present(record, CONVERSATION_FIELDS)
        base = FieldMap(
            id=_first_present(record, ID_FIELDS),
            text=text,
            turns=turns,
            conversation=conversation,
            label=_first_present(record, LABEL_FIELDS),
            language=_first_present(record, LANGUAGE_FIELDS),
        )
    given = {k: v for k, v in vars(explicit).items() if v is not None}
    if given.keys() & {"text", "turns", "conversation"}:
        base = replace(base, text=None, turns=None, conversation=None)
    fields = replace(base, **given)
    if not (fields.text or fields.turns or fields.conversation):
        raise ValueError(
            f"{where}: no prompt field found (looked for {', '.join(TEXT_FIELDS + TURNS_FIELDS + CONVERSATION_FIELDS)}); "
            "name one with --text-field, --turns-field or --conversation-field"
        )
    return fields


def source_fields(source: Source, options: IngestOptions) -> FieldMap | None:
    """The field map of a source, from its first record (None when it has none).

    Detected once, on the driver, and handed to every part's reader, so that each shard is read
    with the fields the first one showed (as one file read from the top would be).
    """
    if options.limit == 0:
        return None
    for where, record in source_records(source, options):
        return resolve_fields(record, options.explicit(), PRESETS.get(source.location), where)
    return None


def _content_text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI-style content parts
        return "\n".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    raise ValueError(f"{where}: message content must be a string or a list of text parts")


def user_turns(record: Any, fields: FieldMap, where: str) -> list[str]:
    """The user turns of one record, in order."""
    if isinstance(record, str):
        return [record]
    if not isinstance(record, dict):
        raise ValueError(
            f"{where}: expected a JSON object or a string, got {type(record).__name__}"
        )
    name = fields.text or fields.turns or fields.conversation
    if name not in record or record[name] is None:
        raise ValueError(f"{where}: missing field {name!r}")
    value = record[name]
    if fields.text:
        if not isinstance(value, str):
            raise ValueError(f"{where}: field {name!r} must be a string")
        return [value]
    if not isinstance(value, list):
        raise ValueError(f"{where}: field {name!r} must be a list")
    if fields.turns:
        return [
            _content_text(t["content"] if isinstance(t, dict) else t, f"{where}: field {name!r}")
            for t in value
        ]
    turns = []
    for m in value:
        if not isinstance(m, dict):
            raise ValueError(
                f"{where}: field {name!r} must be a list of messages {{role, content}}"
            )
        role = m.get("role", m.get("from"))
        if role in USER_ROLES:
            turns.append(
                _content_text(m.get("content", m.get("value")), f"{where}: field {name!r}")
            )
    if not turns:
        raise ValueError(f"{where}: field {name!r} has no user message")
    return turns


def record_id(record: Any, fields: FieldMap, where: str) -> str | None:
    """The record's source id; None when the source has no id field (records are then numbered)."""
    if fields.id is None:
        return None
    if not isinstance(record, dict) or record.get(fields.id) is None:
        raise ValueError(f"{where}: missing id field {fields.id!r}")
    return str(record[fields.id])


def _optional_str(record: Any, name: str | None) -> str | None:
    if name is None or not isinstance(record, dict) or record.get(name) is None:
        return None
    return str(record[name])


class UniqueIds:
    """The source ids seen so far and where, so that a repeated id names both records."""

    def __init__(self, id_field: str | None) -> None:
        self.id_field = id_field
        self.seen: dict[str, str] = {}

    def add(self, sid: str, where: str) -> None:
        """Record ``sid``; a ValueError naming both places if it was seen before."""
        if sid in self.seen:
            raise ValueError(
                f"{where}: duplicate id {sid!r} in field {self.id_field!r} (first at {self.seen[sid]})"
            )
        self.seen[sid] = where


def normalise(
    records: Iterator[Located],
    explicit: FieldMap,
    preset: FieldMap | None = None,
    limit: int | None = None,
) -> Iterator[tuple[str, list[str], str | None, str | None, Any]]:
    """(source id, user turns, label, language, raw record) per record; ids unique within a source."""
    fields: FieldMap | None = None
    ids = UniqueIds(None)
    for index, (where, record) in enumerate(itertools.islice(records, limit)):
        if fields is None:
            fields = resolve_fields(record, explicit, preset, where)
            ids = UniqueIds(fields.id)
        sid = record_id(record, fields, where)
        if sid is None:
            sid = str(index)
        else:
            ids.add(sid, where)
        yield (
            sid,
            user_turns(record, fields, where),
            _optional_str(record, fields.label),
            _optional_str(record, fields.language),
            record,
        )


PART_SCHEMA = pa.schema(
    [
        ("source_id", pa.string()),
        ("turns", pa.list_(pa.string())),
        ("label", pa.string()),
        ("language", pa.string()),
        ("where", pa.string()),
        ("error", pa.binary()),
    ]
)
"""Rows of one part as a reader (local, or a Ray worker) hands them to the step."""


def part_rows(
    part: Part,
    fields: FieldMap,
    options: IngestOptions,
    dataset: Any = None,
    batch_rows: int = BATCH_ROWS,
) -> Iterator[pa.Table]:
    """The normalised records of one part (``PART_SCHEMA``), ``batch_rows`` at a time.

    The source id is null where the source numbers its records (only the step knows the index
    across parts). A bad record ends the part with a row whose ``error`` holds the pickled
    exception (its message names file:line); the step raises it when it reaches that row in
    record order, so both engines report the first bad record. Other exceptions are bugs and
    propagate with their traceback. At most
    ``options.limit`` records are read (a part never needs more than its source).
    """
    rows: dict[str, list[Any]] = {name: [] for name in PART_SCHEMA.names}
    records = itertools.islice(read_part(part, options, dataset), options.limit)
    while True:
        sid, where, error = None, None, None
        try:
            located = next(records, None)
            if located is None:
                break
            where, record = located
            sid = record_id(record, fields, where)
            turns = user_turns(record, fields, where)
        except Exception as ex:
            if not is_user_error(ex):  # a bug: its traceback, from where it happened
                raise
            error, turns, record = pickle.dumps(ex), [], None
        values = (
            sid,
            turns,
            _optional_str(record, fields.label),
            _optional_str(record, fields.language),
            where,
            error,
        )
        for name, value in zip(PART_SCHEMA.names, values):
            rows[name].append(value)
        if error is not None or len(rows["where"]) >= batch_rows:
            yield pa.Table.from_pydict(rows, schema=PART_SCHEMA)
            rows = {name: [] for name in PART_SCHEMA.names}
        if error is not None:
            return
    if rows["where"]:
        yield pa.Table.from_pydict(rows, schema=PART_SCHEMA)


class Sequencer:
    """One source's part rows, in record order, into ``ingested.parquet`` rows.

    The one place, for both engines, where records of a source without an id field are
    numbered, repeated ids are refused (naming both records), the first bad record's error is
    raised, and ``--limit`` is applied.
    """

    def __init__(self, name: str, fields: FieldMap, limit: int | None) -> None:
        self.name, self.fields, self.limit = name, fields, limit
        self.ids = UniqueIds(fields.id)
        self.records = self.multi_turn = 0

    @property
    def full(self) -> bool:
        """Whether the source has given its ``--limit`` records (later rows are dropped)."""
        return self.limit is not None and self.records >= self.limit

    def take(self, rows: pa.Table) -> pa.Table:
        """The next rows of the source (``PART_SCHEMA``) as rows of ``SCHEMA``."""
        if self.limit is not None:
            rows = rows.slice(0, max(0, self.limit - self.records))
        errors = rows.column("error")
        bad = (
            int(np.argmax(pc.is_valid(errors).to_numpy(zero_copy_only=False)))
            if errors.null_count < len(rows)
            else None
        )
        sids: list[Any] = rows.column("source_id").to_pylist()
        if self.fields.id is None:
            sids = [str(self.records + i) for i in range(len(rows))]
        else:
            checked = len(rows) if bad is None else bad + 1
            for sid, where in zip(sids[:checked], rows.column("where").to_pylist()):
                if sid is not None:
                    self.ids.add(sid, where)
        if bad is not None:
            raise pickle.loads(  # inspect-evals-lint: ignore[host_code_execution] -- bytes pickled by part_rows, in this process or in this job's Ray workers (which exchange everything by pickle anyway)
                errors[bad].as_py()
            )
        self.records += len(rows)
        turns = rows.column("turns")
        self.multi_turn += pc.sum(pc.greater(pc.list_value_length(turns), 1)).as_py() or 0
        return pa.Table.from_arrays(
            [
                pa.array([f"{self.name}:{sid}" for sid in sids], pa.string()),
                pa.array([self.name] * len(rows), pa.string()),
                pa.array(sids, pa.string()),
                turns,
                rows.column("label"),
                rows.column("language"),
            ],
            schema=SCHEMA,
        )


PartRows = Generator[tuple[int, pa.Table], None, None]
"""(source index, part rows) in record order, as an engine produces them."""
