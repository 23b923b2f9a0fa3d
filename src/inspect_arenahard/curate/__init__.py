"""BenchBuilder curation: crowdsourced prompts → a hard, diverse Inspect dataset.

One module per step (``ingest`` → ``cluster`` → ``annotate`` (an Inspect task) → ``select`` →
``report``); every step reads and writes files in a work folder (:mod:`.work`), skips itself
when its inputs are unchanged (:mod:`.cache`) and writes a JSON report of what it did.
"""
