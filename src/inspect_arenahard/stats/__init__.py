"""Statistics core: pure numpy/scipy, no Inspect imports (checked by a test)."""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "agreement",
    "battles",
    "block_refit",
    "bootstrap",
    "bt",
    "combined",
    "gaming",
    "judge_analytics",
    "judge_bias",
    "leaderboard",
    "power",
    "quality",
    "ranking",
    "reference_comparison",
    "sandwich",
    "style_control",
]
