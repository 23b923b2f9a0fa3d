"""ScaleEval (Chern et al. 2024): meta-evaluation of LLM judges via agent debate.

* ``data``: loaders for human-labelled pairwise sets (LLMBar, PandaLM, Auto-J, HH-RLHF, JSONL);
* ``criteria``: criteria rubrics and their perturbed wordings (paper Table 8);
* ``debate``: the multi-agent debate and the single-judge prompt, verdict parsing;
* ``task``: the ``scaleeval`` Inspect task;
* ``judgecard``: the ``arenahard_judgecard`` task (a judge's report card against humans);
* ``judge_agreement``: example- and system-level agreement tables (no Inspect imports);
* ``review``: the human-review queue for debates without consensus;
* ``logs``: item records from ``scaleeval`` logs (``arenahard metaeval``).
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "criteria",
    "data",
    "debate",
    "item_records",
    "judgecard",
    "judge_agreement",
    "review",
    "task",
]
