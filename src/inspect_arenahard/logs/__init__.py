"""Inspect logs as the single source of truth: reading judged games out of them, importing
arena-hard-auto judgments into them, and battle files ranked like them.
"""
