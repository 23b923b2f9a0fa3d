"""The evaluation: the ``arenahard`` task, its dataset and solvers, the judge scorers and the
protocols they share (verdict parsing, answer neutralisation, committees), the probes.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "adaptive",
    "committee",
    "dataset",
    "integrity",
    "judging",
    "offline",
    "probes",
    "scaleeval_verdicts",
    "scorers",
    "solvers",
    "style_features",
    "task",
    "templates",
    "verdicts",
    "version_config",
]
