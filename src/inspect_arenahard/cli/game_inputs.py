"""Where ``judges``, ``power`` and ``metrics`` take their game records from: Inspect logs and/or
a JSONL file of game records (``--games``), every record checked on the way in.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from inspect_arenahard.cli.options import output_file
from inspect_arenahard.errors import MissingFileError, UserError
from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.stats.game_record import GameRecord, check_game


def load_games(logs: Sequence[str], games_file: str | None) -> list[GameRecord]:
    """Game records from Inspect logs and/or a JSONL file of records (each line checked)."""
    records: list[GameRecord] = []
    if logs:
        # lazy: the log reader pulls in Inspect
        from inspect_arenahard.logs.ranked_games import read_log_games

        records.extend(read_log_games(list(logs))[0])
    if games_file:
        path = Path(games_file)
        if not path.is_file():
            raise MissingFileError(f"{path}: no such file")
        records.extend(
            check_game(record, f"{path}:{lineno}") for lineno, record in read_jsonl(path)
        )
    if not logs and not games_file:
        raise UserError("give log files/directories or --games FILE")
    if not records:
        raise UserError("no game records found in the given inputs")
    return records


def add_game_inputs(parser: argparse.ArgumentParser) -> None:
    """The shared inputs: positional logs, ``--games FILE`` and ``--json FILE``."""
    parser.add_argument("logs", nargs="*", help="Inspect log files or directories")
    parser.add_argument(
        "--games", metavar="FILE", help="JSONL of game records instead of (or besides) logs"
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="also write the results as JSON"
    )
