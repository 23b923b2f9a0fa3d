"""Arena-Hard-Auto, BenchBuilder and judge meta-evaluation for Inspect AI.

Exports resolve lazily so that the pure statistics modules (``inspect_arenahard.stats``) import
without pulling in Inspect.
"""

# inspect-evals-lint: ignore-file[init_exports] -- the scaleeval task shares its name with the subpackage (see _EXPORTS)
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # visible to type checkers and IDEs; at run time ``__getattr__`` imports on use
    from inspect_arenahard.arena.examiner import autoarena_questions
    from inspect_arenahard.arena.peer_battle import autoarena_battle, autoarena_committee
    from inspect_arenahard.curate.annotate import arenahard_annotate
    from inspect_arenahard.evaluate.probes import arenahard_probes
    from inspect_arenahard.evaluate.scorers import committee_judge, pairwise_judge
    from inspect_arenahard.evaluate.solvers import answer_with_baseline
    from inspect_arenahard.evaluate.task import arenahard, arenahard_v2_creative, arenahard_v2_hard
    from inspect_arenahard.judging.games import JudgeSettings
    from inspect_arenahard.report.dataframes import battles_df, games_df, leaderboard_df
    from inspect_arenahard.scaleeval.judgecard import arenahard_judgecard
    from inspect_arenahard.stats.ranking import RankingOptions

__version__ = "0.1.0"


# The ``scaleeval`` task is not among them: the name belongs to the subpackage (Python rebinds the
# package attribute when the subpackage loads). Import it from ``inspect_arenahard.scaleeval.task``.
_EXPORTS = {
    # tasks
    "arenahard": "inspect_arenahard.evaluate.task",
    "arenahard_v2_hard": "inspect_arenahard.evaluate.task",
    "arenahard_v2_creative": "inspect_arenahard.evaluate.task",
    "arenahard_probes": "inspect_arenahard.evaluate.probes",
    "arenahard_annotate": "inspect_arenahard.curate.annotate",
    "arenahard_judgecard": "inspect_arenahard.scaleeval.judgecard",
    "autoarena_questions": "inspect_arenahard.arena.examiner",
    "autoarena_battle": "inspect_arenahard.arena.peer_battle",
    # solvers, scorers and their settings
    "answer_with_baseline": "inspect_arenahard.evaluate.solvers",
    "pairwise_judge": "inspect_arenahard.evaluate.scorers",
    "committee_judge": "inspect_arenahard.evaluate.scorers",
    "autoarena_committee": "inspect_arenahard.arena.peer_battle",
    "JudgeSettings": "inspect_arenahard.judging.games",
    # notebooks: dataframes of judge logs, and the options every leaderboard is ranked with
    "games_df": "inspect_arenahard.report.dataframes",
    "battles_df": "inspect_arenahard.report.dataframes",
    "leaderboard_df": "inspect_arenahard.report.dataframes",
    "RankingOptions": "inspect_arenahard.stats.ranking",
}

# Literal, so that linters and type checkers read it (the test checks it matches ``_EXPORTS``).
__all__ = [
    "JudgeSettings",
    "RankingOptions",
    "__version__",
    "answer_with_baseline",
    "arenahard",
    "arenahard_annotate",
    "arenahard_judgecard",
    "arenahard_probes",
    "arenahard_v2_creative",
    "arenahard_v2_hard",
    "autoarena_battle",
    "autoarena_committee",
    "autoarena_questions",
    "battles_df",
    "committee_judge",
    "games_df",
    "leaderboard_df",
    "pairwise_judge",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'inspect_arenahard' has no attribute {name!r}")
