"""However the same judged games are spread over logs and folders (split, shuffled, some games in
more than one file), the leaderboard is the same, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from inspect_arenahard.cli import main
from tests.helpers.judge_runs import JudgeScript, run

pytestmark = pytest.mark.shared_data

SAMPLES = 8


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, bytes]:
    """One real run (wins, losses, ties of both strengths, an unparsed prompt) and its leaderboard."""
    folder = tmp_path_factory.mktemp("source")
    moods = {"Use ABC": "strong_loses", "Write a": "loses", "Give me": "unparsed"}
    log = read_eval_log(run(folder, JudgeScript("wins", moods), limit=SAMPLES).location)
    return log, _leaderboard(folder, tmp_path_factory.mktemp("out"))


def _leaderboard(folder: Path, out: Path) -> bytes:
    target = out / "lb.json"
    assert (
        main(["leaderboard", str(folder), "--no-audit", "--rounds", "20", "--json", str(target)])
        == 0
    )
    return target.read_bytes()


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=st.data(),
    files=st.integers(min_value=1, max_value=4),
    folders=st.integers(min_value=1, max_value=3),
)
def test_any_split_gives_the_same_leaderboard(
    source: tuple[EvalLog, bytes],
    tmp_path_factory: pytest.TempPathFactory,
    data: st.DataObject,
    files: int,
    folders: int,
) -> None:
    log, expected = source
    samples = list(log.samples or [])
    # every sample goes to at least one file (a copy in a second file is the same judgment)
    homes = [data.draw(st.sets(st.integers(0, files - 1), min_size=1, max_size=2)) for _ in samples]
    order = data.draw(st.permutations(range(len(samples))))
    root = tmp_path_factory.mktemp("split")
    for f in range(files):
        part = [samples[i] for i in order if f in homes[i]]
        if not part:
            continue
        folder = root / f"machine{f % folders}"
        folder.mkdir(exist_ok=True)
        write_eval_log(log.model_copy(update={"samples": part}), str(folder / f"part{f}.eval"))
    assert _leaderboard(root, tmp_path_factory.mktemp("out")) == expected
