"""Arena-Hard-Auto, BenchBuilder and judge meta-evaluation for Inspect AI."""

from inspect_arenahard.judges import pairwise_judge
from inspect_arenahard.solve import answer_with_baseline
from inspect_arenahard.task import arenahard

__version__ = "0.1.0"

__all__ = ["arenahard", "pairwise_judge", "answer_with_baseline", "__version__"]
