"""Curating at scale: the ``ingest`` step on Ray Data (local Ray, or the cluster in RAY_ADDRESS).

The sources' parts (files, Parquet row groups, row ranges of a Hugging Face dataset: see
``split_part``) become a Ray dataset with one block per part;
each worker reads its part lazily and normalises it with the local engine's own functions
(``part_rows``), with the field map the driver detected from
each source's first record. The rows stream back in order (``preserve_order``) to the driver,
whose ``Sequencer`` numbers records, refuses repeated ids,
raises the first bad record's error (naming file:line) and writes ``ingested.parquet``, exactly
as the local engine does.

Ray Data's own readers are not used for the records: ``read_json`` parses with pyarrow, which
rejects bare-string lines and a field whose type changes between records, and neither it nor
``read_parquet`` keeps a record's line or row, which error messages need. An uncompressed JSONL
file is cut at line starts every 64 MiB, after one read on the driver that counts the lines
before each cut, so its pieces name their lines as the whole file does; a ``.jsonl.gz`` or a JSON
array cannot be entered midway and is one part (shard it to spread it). A hub dataset is loaded by each worker from its
node's Hugging Face cache (downloaded there on first use); on a cluster, ``save_to_disk`` it to
shared storage, or give its Parquet files, to read it once.

Ray is imported only here and only when the Ray engine is chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np
import pyarrow as pa

from inspect_arenahard.curate.prompt_rows import PartRows, part_rows
from inspect_arenahard.curate.scale import connect
from inspect_arenahard.curate.sources import Part, Source, split_part
from inspect_arenahard.curate.step_options import FieldMap, ScaleOptions

if TYPE_CHECKING:
    from inspect_arenahard.curate.step_options import IngestOptions

Plan = list[tuple[int, Part, FieldMap]]
"""(source index, part, the source's field map) per block of the Ray dataset."""


def _read_parts(batch: pa.Table, plan: Plan, options: IngestOptions) -> Iterator[pa.Table]:
    """Worker: the rows of the planned parts this block names, tagged with their source."""
    for index in batch.column("part").to_pylist():
        source, part, fields = plan[index]
        for rows in part_rows(part, fields, options):
            yield rows.append_column("_source", pa.array(np.full(len(rows), source, np.int32)))


def _by_source(block: pa.Table) -> Iterator[tuple[int, pa.Table]]:
    """(source index, rows) for each run of one source's rows in a block."""
    tags = block.column("_source").to_numpy()
    cuts = [0, *(np.flatnonzero(np.diff(tags)) + 1).tolist(), len(tags)]
    rows = block.drop_columns(["_source"])
    for start, stop in zip(cuts, cuts[1:]):
        yield int(tags[start]), rows.slice(start, stop - start)


def ray_rows(
    sources: list[Source],
    fields: list[FieldMap | None],
    options: IngestOptions,
    scale: ScaleOptions,
    full: Callable[[int], bool],
) -> PartRows:
    """The parts of every source read by Ray workers; (source index, part rows) in record order.

    Stops early once every source has its ``--limit`` records (``full``). Shuts down a Ray
    instance it started when the iteration ends or is closed, never a cluster it joined.
    """
    import ray

    plan: Plan = [
        (index, piece, fieldmap)
        for index, (source, fieldmap) in enumerate(zip(sources, fields))
        if fieldmap is not None
        for part in source.parts
        for piece in split_part(part, source.dataset)
    ]
    if not plan:
        return
    started = connect(scale.ray_cpus)
    try:
        kwargs: dict[str, Any] = {"plan": plan, "options": options}
        parts = [{"part": i} for i in range(len(plan))]  # in the object store: no read task
        rows = ray.data.from_items(parts, override_num_blocks=len(plan)).map_batches(
            _read_parts,  # type: ignore[arg-type]  # Ray's hint has no room for fn_kwargs
            batch_size=1,
            batch_format="pyarrow",
            fn_kwargs=kwargs,
        )
        used = sorted({index for index, _, _ in plan})
        for block in rows.iter_batches(batch_size=None, batch_format="pyarrow"):
            yield from _by_source(block)
            if all(full(index) for index in used):
                break
    finally:
        if started:
            ray.shutdown()
