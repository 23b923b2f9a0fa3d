"""What users read: leaderboard tables and plots, the HTML page, cost tables, dataframes and
the judge-gaming audit.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "audit_checks",
    "audit_inputs",
    "costs",
    "dataframes",
    "leaderboard_tables",
    "log_reading",
    "page",
    "score_table_files",
]
