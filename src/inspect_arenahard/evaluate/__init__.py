"""The ``arenahard`` task: its dataset and solvers, the judge scorers, adaptive runs and the
probes. The judging protocols it shares with the other stages live in ``judging/``.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "adaptive",
    "stopping_header",
    "arguments",
    "canaries",
    "dataset",
    "offline",
    "probes",
    "scorers",
    "solvers",
    "task",
    "version_config",
]
