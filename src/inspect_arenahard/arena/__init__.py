"""Auto-Arena (Zhao et al. 2024): examiner questions, peer battles judged by a committee, and
Swiss tournaments over many models.

* :mod:`.examiner`: the ``autoarena_questions`` task (an LLM drafts questions per domain);
* :mod:`.battle`: the ``autoarena_battle`` task (three-round debate, committee verdict);
* :mod:`.protocol`: the turn order and the turn rules (length limits, hidden ``<think>``);
* :mod:`.tournament`, :mod:`.swiss`, :mod:`.ratings`, :mod:`.tournament_report`: tournaments in a folder.
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
