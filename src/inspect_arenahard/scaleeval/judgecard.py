"""The ``arenahard_judgecard`` task: a judge, asked with this project's own pairwise protocol,
over human-labelled pairs — the data behind ``arenahard judges --card``.

Each pair is judged like an Arena-Hard game (``inspect_arenahard.judging.games``): the
Arena-Hard judge prompt, both positions (game 1 shows submission 2 as A, game 2 submission 1),
answers neutralised before the judge sees them. The sets are read by the meta-evaluation loaders
(``inspect_arenahard.scaleeval.data``) from a folder or file the user names (``-T data=``).

Score: ``value`` is the share of the item's parsed games whose verdict is the human majority's
(unscored without a majority or a parsed game); ``metadata`` is the pairwise score contract
(``model`` ``submission_1``, ``baseline`` ``submission_2``) plus ``card``: ``item``, ``source``,
``gold``, ``annotations`` and both submissions' lengths (characters).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anyio import to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from inspect_arenahard.errors import UserError, check_bool, check_choice, check_number, task_errors
from inspect_arenahard.judging.games import (
    JudgeSettings,
    Matchup,
    explain,
    play_game,
    role_models,
)
from inspect_arenahard.judging.integrity import NEUTRALISE_VERSION, neutralise_all
from inspect_arenahard.judging.templates import template
from inspect_arenahard.scaleeval.data import PairItem, load_pairs
from inspect_arenahard.stats.game_record import GameScore
from inspect_arenahard.stats.judge_card import CARD, verdict_for_submissions

SETS: dict[str, tuple[str, ...]] = {
    "llmbar": ("LLMBar_*.json",),
    "mtbench": ("Processed_MT-Bench.json",),
    "pandalm": ("testset-v1.json",),
    "autoj": ("testdata_pairwise.jsonl",),
}
"""Each set's file names inside ``data`` when it is a folder (searched recursively)."""
SCORER_NAME = "judgecard_judge"
"""The scorer's registered name (what `arenahard judges --card` reads)."""


def set_files(name: str, data: str | None) -> list[Path]:
    """The files of set ``name``: ``data`` itself when it is a file, else its matching files."""
    if data is None:
        raise UserError(
            f"set={name} needs -T data=<folder or file> holding it (where to get the sets: "
            "docs/quality.md, 'Judge report card')"
        )
    path = Path(data).expanduser()
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise UserError(f"data={data!r}: no such file or folder")
    files = sorted({f for pattern in SETS[name] for f in path.rglob(pattern)})
    if not files:
        raise UserError(f"data={data!r}: no {' or '.join(SETS[name])} for set={name} in {path}")
    return files


def _sample(item: PairItem) -> Sample:
    return Sample(
        id=item.id,
        input=item.question,
        metadata={
            "submission_1": item.submission_1,
            "submission_2": item.submission_2,
            CARD: {
                "item": item.id,
                "source": item.source,
                "gold": item.gold,
                "annotations": list(item.annotations),
                "length_1": len(item.submission_1),
                "length_2": len(item.submission_2),
            },
        },
    )


@scorer(metrics=[mean(), stderr()])
def judgecard_judge(settings: JudgeSettings | None = None) -> Scorer:
    """Both positions of every pair, by every model bound to ``judge`` (else the main model)."""
    asked = settings or JudgeSettings()

    async def score(state: TaskState, target: Target) -> Score:
        card = dict(state.metadata[CARD])
        shown, neutralised = await to_thread.run_sync(
            neutralise_all,
            {
                "question": state.input_text,
                "model": state.metadata["submission_1"],
                "baseline": state.metadata["submission_2"],
            },
        )
        matchup = Matchup(
            template("judge_system"),
            shown["question"] or "",
            shown["model"] or "",
            shown["baseline"] or "",
            None,
        )
        judges: list[Model] = role_models("judge") or [get_model()]
        games = await collect(
            *(play_game(j, game, matchup, asked, False) for j in judges for game in (1, 2))
        )
        game_score = GameScore(
            model="submission_1",
            baseline="submission_2",
            category=card["source"],
            games=tuple(g.scored() for g in games),
            strong_weight=1,
            neutralisation=NEUTRALISE_VERSION,
            neutralised=neutralised,
        )
        metadata: dict[str, Any] = {**game_score.metadata(), CARD: card}
        verdicts = [verdict_for_submissions(g.label, g.model_position) for g in games]
        parsed = [v for v in verdicts if v is not None]
        answer = ", ".join(f"g{g.game}:{v or 'unparsed'}" for g, v in zip(games, verdicts))
        if card["gold"] is None or not parsed:
            reason = "no human majority" if card["gold"] is None else "no judge verdict parsed"
            return Score.unscored(
                reason=reason, answer=answer, explanation=explain(games), metadata=metadata
            )
        value = sum(v == card["gold"] for v in parsed) / len(parsed)
        return Score(value=value, answer=answer, explanation=explain(games), metadata=metadata)

    return score


@task
@task_errors
def arenahard_judgecard(
    set: str = "llmbar",
    data: str | None = None,
    judge_max_tokens: int = 4096,
    judge_temperature: float = 0.0,
    cache: bool = True,
) -> Task:
    """A judge's report card: Arena-Hard's pairwise protocol over human-labelled pairs.

    Args:
        set: ``llmbar`` (LLMBar, natural and adversarial), ``mtbench`` (MT-Bench human
            judgments, as LLMBar processed them), ``pandalm`` (three annotators) or ``autoj``.
        data: The set's file, or a folder holding it (see docs/quality.md for where to get
            each set).
        judge_max_tokens: Judge output limit.
        judge_temperature: Judge temperature.
        cache: Cache judge replies (a re-run costs no judge calls).
    """
    name = check_choice("set", set, tuple(SETS))
    settings = JudgeSettings(
        config=GenerateConfig(
            max_tokens=check_number("judge_max_tokens", judge_max_tokens, integer=True, minimum=1),
            temperature=check_number("judge_temperature", judge_temperature, minimum=0, maximum=2),
        ),
        cache=CachePolicy(expiry=None) if check_bool("cache", cache) else False,
    )
    items = [item for path in set_files(name, data) for item in load_pairs(path).items]
    return Task(
        dataset=MemoryDataset([_sample(i) for i in items], name=f"judgecard-{name}"),
        solver=[],
        scorer=judgecard_judge(settings),
        metadata={"judgecard_set": name},
    )
