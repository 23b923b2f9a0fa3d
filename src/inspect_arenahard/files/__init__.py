"""File access every stage shares: JSONL/JSON reading with file:line errors, local or remote
stores (``s3://`` …) and the files the commands write.
"""
