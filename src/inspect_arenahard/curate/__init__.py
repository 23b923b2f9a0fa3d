"""BenchBuilder curation: crowdsourced prompts → a hard, diverse Inspect dataset.

One module per step (``ingest`` → ``cluster`` → ``annotate`` (an Inspect task) → ``select`` →
``report``); every step reads and writes files in a work folder (``work``), skips itself
when its inputs are unchanged (``cache``) and writes a JSON report of what it did.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "annotate",
    "annotation_logs",
    "cache",
    "cluster",
    "config",
    "curation_report",
    "embed",
    "filters",
    "ingest",
    "prompt_rows",
    "ray_ingest",
    "reduce",
    "scale",
    "selection",
    "sources",
    "step_options",
    "topics",
    "work",
]
