"""Cost of a Swiss tournament per role (model, opponent, committee) from its pairing logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from inspect_arenahard.arena.tournament import LOGS
from inspect_arenahard.cli import main as cli
from inspect_arenahard.report.costs import log_costs


def test_tournament_cost_counts_every_scripted_call(finished, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tournament, players = finished
    costs = log_costs([tournament.folder / LOGS])
    by_role = costs.by_role()
    assert set(by_role) == {"model", "opponent", "committee"}
    # every live call the scripted players answered is in the logs, none twice
    assert costs.total().calls == len(players.calls)
    per_model = Counter(who for who, _, _ in players.calls)
    served = Counter()
    for (_, model), usage in costs.by_served_model().items():
        served[model] += usage.calls
    assert served == per_model
    out = tmp_path / "report.json"
    assert cli(["tournament", "report", str(tournament.folder), "--cost", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["cost"]["total"]["calls"] == len(players.calls)
