"""The evaluation: the ``arenahard`` task, its dataset and solvers, the judge scorers and the
protocols they share (verdict parsing, answer neutralisation, committees), the probes.
"""
