"""Statistics core: pure numpy/scipy, no Inspect imports (checked by a test)."""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "agreement",
    "battles",
    "block_refit",
    "bootstrap",
    "bt",
    "combined",
    "confidence_sequence",
    "estimates",
    "game_record",
    "judge_analytics",
    "judge_bias",
    "judge_checks",
    "judge_coverage",
    "model_families",
    "power",
    "quality",
    "ranking",
    "reference_comparison",
    "sandwich",
    "score_tables",
    "shares",
    "style_control",
    "style_refit",
    "verdict_points",
]
