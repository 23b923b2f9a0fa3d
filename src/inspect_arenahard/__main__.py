"""``python -m inspect_arenahard``: the ``arenahard`` console script, for environments where the
script's folder is not on the ``PATH``."""

import sys

from inspect_arenahard.cli import console

sys.exit(console())
