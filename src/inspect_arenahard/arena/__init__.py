"""Auto-Arena (Zhao et al. 2024): examiner questions, peer battles judged by a committee, and
Swiss tournaments over many models.

* ``examiner``: the ``autoarena_questions`` task (an LLM drafts questions per domain);
* ``battle``: the ``autoarena_battle`` task (three-round debate, committee verdict);
* ``protocol``: the turn order and the turn rules (length limits, hidden ``<think>``);
* ``tournament``, ``swiss``, ``ratings``, ``tournament_report``: tournaments in a folder.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "config",
    "domains",
    "examiner",
    "peer_battle",
    "protocol",
    "questions",
    "ratings",
    "standings",
    "swiss",
    "tournament",
]
