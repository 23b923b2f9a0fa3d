"""The judging kernel: what every stage that asks a model for a verdict shares.

Protocol grammars (pairwise labels, battle labels, ScaleEval's verdicts), the readings a judge
may apply to a text, neutralisation of answers before a judge reads them, judge-directed text in
answers and the per-answer audit record, prompt templates, the judge call with its retries,
committees and style features. The ``arenahard`` task (``evaluate/``), Auto-Arena (``arena/``), ScaleEval
(``scaleeval/``) and curation (``curate/``) build on it; it imports none of them.
"""

# Public names: the modules (the package itself defines none of its own).
__all__ = [
    "answer_audit",
    "canonical",
    "committee",
    "folding",
    "games",
    "injection",
    "integrity",
    "scaleeval_verdicts",
    "style_features",
    "templates",
    "verdicts",
]
