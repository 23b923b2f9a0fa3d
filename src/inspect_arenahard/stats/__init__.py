"""Statistics core: pure numpy/scipy, no Inspect imports (checked by a test)."""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "agreement",
    "battles",
    "block_refit",
    "bootstrap",
    "bt",
    "calibration",
    "combined",
    "confidence_sequence",
    "drift",
    "estimates",
    "game_record",
    "judge_analytics",
    "judge_bias",
    "judge_card",
    "power",
    "quality",
    "rank_options",
    "ranking",
    "reference_comparison",
    "sandwich",
    "score_tables",
    "style_control",
    "style_refit",
    "verdict_points",
]
