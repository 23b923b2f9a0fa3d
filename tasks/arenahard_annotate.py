"""Runnable task file: ``inspect eval tasks/arenahard_annotate.py -T pool=work/prompts.parquet --model ...``.

The task lives in :mod:`inspect_arenahard.curate.annotate` (also registered as
``arenahard_annotate`` through the package's Inspect entry point).
"""

from inspect_arenahard.curate.annotate import arenahard_annotate

__all__ = ["arenahard_annotate"]
