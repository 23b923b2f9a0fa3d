"""Inspect logs as the single source of truth: reading judged games out of them, importing
arena-hard-auto judgments into them, and battle files ranked like them.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "battle_files",
    "card_items",
    "importer",
    "ranked_games",
    "reader",
]
