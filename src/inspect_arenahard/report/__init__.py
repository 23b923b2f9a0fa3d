"""What users read: leaderboard tables and plots, the HTML page, cost tables, dataframes and
the judge-gaming audit.
"""
