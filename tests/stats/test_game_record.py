"""The game record's one validator, where records enter: judge logs, JSONL files, the statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, write_eval_log

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.game_record import BATTLE_FIELDS, RECORD_FIELDS, check_game
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

V01 = str(shared("arena-hard-v0.1"))


@pytest.fixture(scope="module")
def judge_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    judge = scripted_model(
        "judge", lambda m: "[[A>B]]" if judged(m)[1].startswith("model answer") else "[[B>A]]"
    )
    candidate = scripted_model("candidate", lambda m: "model answer")
    logs = tmp_path_factory.mktemp("logs")
    [log] = eval(
        arenahard(data_dir=V01),
        model=candidate,
        model_roles={"judge": judge},
        limit=2,
        log_dir=str(logs),
        display="none",
    )
    return log.location


def test_records_read_from_a_log_pass_the_validator(judge_log: str) -> None:
    games = read_games([judge_log]).games
    assert len(games) == 4
    for k, game in enumerate(games):
        assert check_game(game, f"game {k}") is game
        assert set(RECORD_FIELDS) <= set(game)
    assert {g["model_position"] for g in games} == {"A", "B"}


def test_a_damaged_game_in_a_log_names_the_log_sample_and_field(
    judge_log: str, tmp_path: Path
) -> None:
    log = read_eval_log(judge_log)
    sample = log.samples[1]  # type: ignore[index]
    del sample.scores["pairwise_judge"].metadata["games"][1]["label"]  # type: ignore[index]
    broken = tmp_path / "broken.eval"
    write_eval_log(log, str(broken))
    with pytest.raises(ValueError) as error:
        read_games([str(broken)])
    message = str(error.value)
    assert message.startswith(f"{broken}: sample {sample.id} (epoch 1): score metadata games[1]: ")
    assert message.endswith("missing field(s) label")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g.pop("judge"), "missing field(s) judge"),
        (
            lambda g: g.update(model_position="C"),
            "field 'model_position' must be 'A' or 'B', got 'C'",
        ),
        (lambda g: g.update(label="A>>>B"), "field 'label': unknown verdict label 'A>>>B'"),
    ],
)
def test_a_bad_line_in_a_games_file_is_one_error_naming_file_line_and_field(
    judge_log: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    games = read_games([judge_log]).games
    change(games[1])
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    assert main(["judges", "--games", str(path)]) == 2
    assert f"{path}:2: {message}" in capsys.readouterr().err


def test_mirrored_labels_and_minimal_records_are_accepted_where_they_were() -> None:
    record = {
        "question_id": "q",
        "model": "m",
        "baseline": "b",
        "model_position": "A",
        "label": "B<A",
    }
    assert check_game(record, "r", BATTLE_FIELDS) is record
    assert from_games([record]).points.tolist() == [1.0]
    with pytest.raises(ValueError, match=r"^r: missing field\(s\) judge, game$"):
        check_game(record, "r")
    with pytest.raises(ValueError, match="^r: a game record must be an object, got list$"):
        check_game([], "r")
