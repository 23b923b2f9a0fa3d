"""Ingest: prompts from Hugging Face datasets or local files into one normalised table.

Sources (read by ``sources``): a Hugging Face dataset id (``lmsys/lmsys-chat-1m``), a folder
written by ``Dataset.save_to_disk``, a local JSONL (optionally ``.gz``), JSON or Parquet file, or
a folder or glob of such files (shards, read in sorted order as one source). Records
may hold the prompt as a string field, a list of turns, a conversation (``[{role, content}]``),
be bare strings, or be topic groups ``[{id, name, examples: [str]}]`` (the Arena catalog), whose
group name becomes the record's label. Field names are detected from the first record or given
explicitly (presets cover lmsys-chat-1m, chatbot_arena_conversations and WildChat).

Output: ``ingested.parquet`` with ``id`` (``<source>:<source id>``), ``source``, ``source_id``,
``turns`` (the user turns), ``label`` and ``language`` (when the source has them). Nothing is
filtered here: filters run in ``cluster`` so that each one is counted.

Engines: a source is a list of parts (``sources``), each normalised by
``part_rows`` and put in order by a ``Sequencer``. The local engine
reads the parts one after the other; the Ray engine (``ray_ingest``) reads them on Ray
workers. Both use these functions, so they write the same rows and raise the same first error.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from inspect_arenahard.curate.cache import (
    Timer,
    progress_bar,
    step_key,
    up_to_date,
    write_report,
)
from inspect_arenahard.curate.prompt_rows import (
    BATCH_ROWS,
    SCHEMA,
    PartRows,
    Sequencer,
    part_rows,
    source_fields,
)
from inspect_arenahard.curate.sources import Source, resolve_source
from inspect_arenahard.curate.step_options import FieldMap, IngestOptions
from inspect_arenahard.curate.work import Work

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import ScaleOptions


# --------------------------------------------------------------------------- the step


def _local_rows(
    sources: list[Source],
    fields: list[FieldMap | None],
    options: IngestOptions,
    full: Callable[[int], bool],
) -> PartRows:
    """Every part in this process, one after the other."""
    for index, (source, fieldmap) in enumerate(zip(sources, fields)):
        if fieldmap is None:
            continue
        for part in source.parts:
            if full(index):
                break
            for rows in part_rows(part, fieldmap, options, source.dataset):
                yield index, rows


def ingest(
    sources: list[str],
    work: Work,
    options: IngestOptions | None = None,
    force: bool = False,
    scale: ScaleOptions | None = None,
) -> dict[str, Any]:
    """Read every source into ``ingested.parquet``; returns the step report.

    ``scale`` picks the engine (local by default, or Ray: ``ray_ingest``); both write the
    same rows in the same order, so the engine is no part of the cache key.
    """
    options = options or IngestOptions()
    engine = scale.checked_engine() if scale is not None else "local"
    if not sources:
        raise ValueError("ingest needs at least one --source")
    timer = Timer()
    opened = [resolve_source(source, options) for source in sources]
    names = [s.name for s in opened]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise ValueError(
            f"two sources share the name {clash[0]!r} (ids would collide); name them with NAME=SOURCE"
        )
    key = step_key("ingest", sources=[(s.name, s.digest) for s in opened], options=vars(options))
    report_path = work.report("ingest")
    if not force and up_to_date(report_path, key, [work.ingested]):
        return json.loads(report_path.read_text(encoding="utf-8")) | {"cached": True}

    fields = [source_fields(source, options) for source in opened]
    sequencers = [
        Sequencer(source.name, f, options.limit) if f is not None else None
        for source, f in zip(opened, fields)
    ]

    def full(index: int) -> bool:
        sequencer = sequencers[index]
        return sequencer is None or sequencer.full

    if engine == "ray":
        from inspect_arenahard.curate.ray_ingest import ray_rows

        assert scale is not None
        produced = ray_rows(opened, fields, options, scale, full)
    else:
        produced = _local_rows(opened, fields, options, full)
    tmp = work.ingested.with_suffix(".parquet.tmp")
    bar = progress_bar("ingest", total=None, unit="rec")
    with contextlib.closing(produced), bar, pq.ParquetWriter(tmp, SCHEMA) as writer:
        pending: list[pa.Table] = []
        for index, rows in produced:
            sequencer = sequencers[index]
            if sequencer is None or sequencer.full:
                continue
            pending.append(sequencer.take(rows))
            bar.update(len(pending[-1]))
            if sum(len(t) for t in pending) >= BATCH_ROWS:
                writer.write_table(pa.concat_tables(pending))
                pending = []
        if pending:
            writer.write_table(pa.concat_tables(pending))
    tmp.replace(work.ingested)
    per_source = [
        {
            "source": source.given,
            "name": source.name,
            "digest": source.digest,
            "records": sequencer.records if sequencer else 0,
            "multi_turn": sequencer.multi_turn if sequencer else 0,
        }
        for source, sequencer in zip(opened, sequencers)
    ]
    return write_report(
        report_path,
        {
            "step": "ingest",
            "key": key,
            "engine": engine,
            "sources": per_source,
            "records": sum(s["records"] for s in per_source),
            "output": str(work.ingested),
            "seconds": timer.seconds,
        },
    )
