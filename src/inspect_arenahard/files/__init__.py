"""File access every stage shares: JSONL/JSON reading with file:line errors, local or remote
stores (``s3://`` …) and the files the commands write.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "arena_layout",
    "bulk_reads",
    "jsonl",
    "outputs",
    "sample_data",
    "storage",
]
