"""Dataframes of judge logs for notebooks, in the style of ``inspect_ai.analysis``.

``games_df`` has one row per judged game, ``battles_df`` one row per battle as the leaderboard
fits them and ``leaderboard_df`` the leaderboard's rows; both come from the same fast log reader as ``arenahard leaderboard`` (newest complete
run per model and settings; superseded, partial and ignored logs are listed in ``df.attrs["notes"]``),
so a notebook never re-parses logs:

```python
from inspect_arenahard import RankingOptions
from inspect_arenahard.report.dataframes import battles_df, games_df, leaderboard_df

games = games_df("logs/")                      # or "s3://bucket/arenahard"
games.groupby(["judge", "position"]).points.mean()
battles = battles_df("logs/", strong_weight=3)
board = leaderboard_df("logs/", RankingOptions(style_control="length"))  # as `arenahard leaderboard`
```
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from inspect_arenahard.stats.battles import STYLE_COLUMNS, from_games, records_weight, style_vector
from inspect_arenahard.stats.game_record import GameRecord
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.stats.verdict_points import weighted_points

if TYPE_CHECKING:
    import pandas as pd

LogPaths = str | Path | Sequence[str | Path]

GAME_COLUMNS = (
    "log", "sample_id", "epoch", "model", "baseline", "judge", "category", "game", "position",
    "label", "parsed", "points", "weight",
    *(f"{side}_{c}" for side in ("model", "baseline") for c in STYLE_COLUMNS),
)  # fmt: skip
"""``position`` is where the model under test was shown (A or B); ``points`` its points in the
game (1 win, 0.5 tie, 0 loss; NaN unparsed); ``weight`` the battles the game counts for (a
strong verdict ``strong_weight``); ``model_tokens`` … its answer's style, ``baseline_*`` the
baseline's."""


def _paths(logs: LogPaths | None) -> list[str | Path]:
    if logs is None:
        logs = os.environ.get("INSPECT_LOG_DIR", "./logs")
    return [logs] if isinstance(logs, (str, Path)) else list(logs)


def _read(logs: LogPaths | None) -> tuple[list[GameRecord], list[str]]:
    from inspect_arenahard.logs.reader import read_games

    result = read_games(_paths(logs))
    return list(result.games), result.notes()


def games_df(logs: LogPaths | None = None, strong_weight: int | None = None) -> pd.DataFrame:
    """One row per judged game of the arenahard judge logs under ``logs`` (default: ``INSPECT_LOG_DIR``)."""
    games, notes = _read(logs)
    frame = games_frame(games, strong_weight)
    frame.attrs["notes"] = notes
    return frame


def games_frame(
    games: Sequence[Mapping[str, Any]], strong_weight: int | None = None
) -> pd.DataFrame:
    """``games_df`` of game records already read (the log reader's contract); ``strong_weight``
    None is the records' own (``stats.battles.records_weight``)."""
    import pandas as pd

    weight_of_records = records_weight(games) if strong_weight is None else strong_weight
    rows = []
    for g in games:
        parsed = bool(g["parsed"]) and g["label"] is not None
        points, weight = (
            weighted_points(g["label"], g["model_position"], weight_of_records)
            if parsed
            else (np.nan, 1.0)
        )
        style = g.get("style") or {}
        rows.append(
            (
                g.get("log"), g["question_id"], g["epoch"], g["model"], g["baseline"], g["judge"], g["category"],
                g["game"], g["model_position"], g["label"], parsed, points / weight, weight,
                *_style(style.get("model")), *_style(style.get("baseline")),
            )
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(GAME_COLUMNS))


def _style(features: Any) -> tuple[float, ...]:
    return style_vector(features) if features else (np.nan,) * len(STYLE_COLUMNS)


def battles_df(logs: LogPaths | None = None, strong_weight: int | None = None) -> pd.DataFrame:
    """One row per battle as the leaderboard fits them: ``model_a`` (shown first) against
    ``model_b``, ``winner`` (model_a, model_b, tie; None when unparsed), ``points_a``, ``weight``
    (a strong verdict counts ``strong_weight`` battles), question, category, judge and style."""
    import pandas as pd

    games, notes = _read(logs)
    battles = from_games(games, strong_weight)
    models = np.array(battles.models, dtype=object)
    points = battles.points
    winner = np.where(points == 1, "model_a", np.where(points == 0, "model_b", "tie")).astype(
        object
    )
    winner[np.isnan(points)] = None
    frame = pd.DataFrame(
        {
            "question_id": battles.question_id,
            "model_a": models[battles.a],
            "model_b": models[battles.b],
            "winner": winner,
            "points_a": points,
            "weight": battles.weight,
            "category": battles.category,
            "judge": battles.judge,
            "baseline": battles.baseline,
        }
    )
    for side, style in (("a", battles.style_a), ("b", battles.style_b)):
        for k, column in enumerate(STYLE_COLUMNS):
            frame[f"{column}_{side}"] = style[:, k] if style is not None else np.nan
    frame.attrs["notes"] = notes
    return frame


def leaderboard_df(
    logs: LogPaths | None = None, options: RankingOptions | None = None
) -> pd.DataFrame:
    """One row per model and table, the records ``arenahard leaderboard --json`` writes for the
    same ``options`` (the same ranking service): ``category`` (``all`` for the pooled table,
    ``combined`` for the v2.0 combined score), score, interval, ``n`` in games, ``ci_method`` and
    who judged each row (``judges``, ``judge_flags``, ``self_judged``, ``comparable_group`` …);
    ``df.attrs["judge_notes"]`` holds the warnings the printed table ends with (split or partial
    judges, flagged judges)."""
    import pandas as pd

    from inspect_arenahard.report.leaderboard_tables import POOLED, records

    games, notes = _read(logs)
    ranking = rank(games, options)
    judging = ranking.judgings()
    frame = pd.DataFrame(
        [
            {"category": t.category or POOLED, **r}
            for t in ranking.tables
            for r in records([t], judging=judging)
        ]
    )
    frame.attrs["notes"] = notes
    frame.attrs["interval"] = [t.interval for t in ranking.tables]
    frame.attrs["judge_notes"] = [n for j in judging.values() for n in j.notes()]
    return frame
