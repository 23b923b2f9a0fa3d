"""Importing real arena-hard-auto judgments: logs that read back into the same leaderboard path."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.estimates import leaderboard
from tests.helpers.shared_data import shared
from tests.helpers.v01_score import published_v01_score

V01 = shared("arena-hard-v0.1")


@pytest.mark.parametrize(
    ("judge", "model"),
    [
        ("gpt-4o", "gpt-4o-mini"),
        ("gpt-3.5-turbo-0125", "Nexusflow__Athene-V2-Chat"),
        ("gpt-4-1106-preview", "Meta-Llama-3.1-8B-Instruct"),
    ],
)
def test_imported_judgments_give_the_published_v01_score(
    judge: str, model: str, tmp_path: Path
) -> None:
    assert (
        main(["import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(tmp_path)]) == 0
    )
    result = read_games([tmp_path])
    games = [g for g in result.games if g["model"] == model]
    board = leaderboard(from_games(games), baseline="gpt-4-0314", rounds=20, seed=1)
    row = next(r for r in board.rows if r.model == model)
    expected, unparsed = published_v01_score(V01 / "model_judgment" / judge / f"{model}.jsonl")
    assert row.score == pytest.approx(expected, abs=1e-9)
    assert row.excluded == unparsed == sum(not g["parsed"] for g in games)


def test_imported_log_opens_like_a_live_run(tmp_path: Path) -> None:
    main(
        [
            "import",
            "arena-hard-auto",
            str(V01),
            "--judge",
            "gpt-3.5-turbo-0125",
            "--out",
            str(tmp_path),
        ]
    )
    [path] = tmp_path.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task == "arenahard" and log.eval.model == "Nexusflow__Athene-V2-Chat"
    assert len(log.samples or []) == 108
    unscored = [s for s in log.samples or [] if math.isnan(s.scores["pairwise_judge"].value)]  # type: ignore[arg-type]
    scored = [s for s in log.samples or [] if not math.isnan(s.scores["pairwise_judge"].value)]  # type: ignore[arg-type]
    assert len(unscored) + len(scored) == 108
    sample = scored[0]
    score = sample.scores["pairwise_judge"]  # type: ignore[index]
    assert {g["judge"] for g in score.metadata["games"]} == {"gpt-3.5-turbo-0125"}
    assert score.metadata["style"]["model"]["token_len"] > 0  # recovered from the judge prompt
    assert sample.output.completion and sample.metadata["baseline_answer"]
    assert "game 1 (model is Assistant B)" in score.explanation


def test_imported_log_has_real_times_no_nan_and_says_where_judgments_came_from(
    tmp_path: Path,
) -> None:
    import zipfile
    from datetime import datetime

    judge = "gpt-3.5-turbo-0125"
    assert (
        main(["import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(tmp_path)]) == 0
    )
    [path] = tmp_path.glob("*.eval")
    source = V01 / "model_judgment" / judge / "Nexusflow__Athene-V2-Chat.jsonl"
    log = read_eval_log(str(path), resolve_attachments=True)
    started = datetime.fromisoformat(log.stats.started_at)
    assert started.timestamp() == pytest.approx(source.stat().st_mtime, abs=1e-3)
    assert started.year > 1970 and log.stats.completed_at == log.stats.started_at
    assert "NaN" not in zipfile.ZipFile(path).read("header.json").decode()
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert list(metrics) == ["games_vs_baseline", "mean", "stderr"]
    sample = (log.samples or [])[0]
    [event] = sample.events
    assert event.event == "info" and f"imported from {source}, line " in str(event.data)


def test_bad_judgment_file_names_the_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "model_judgment" / "j").mkdir(parents=True)
    (data / "model_answer").mkdir()
    (data / "question.jsonl").write_bytes((V01 / "question.jsonl").read_bytes())
    good = (
        (V01 / "model_judgment" / "gpt-4o" / "gpt-4o-mini.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()[0]
    )
    bad = json.loads(good)
    bad["games"][1]["score"] = "A>>>B"
    (data / "model_judgment" / "j" / "m.jsonl").write_text(
        good + "\n" + json.dumps(bad) + "\n", encoding="utf-8"
    )
    assert (
        main(
            ["import", "arena-hard-auto", str(data), "--judge", "j", "--out", str(tmp_path / "out")]
        )
        == 2
    )
    with pytest.raises(
        ValueError, match=r"m.jsonl:2: games\[1\].score 'A>>>B' is not a verdict label"
    ):
        from inspect_arenahard.logs.importer import import_judgments

        import_judgments(data, "j", tmp_path / "out")


def test_2025_judgment_schema(tmp_path: Path) -> None:
    """Records keyed by ``uid`` with ``judgment: {answer}`` and ``prompt`` messages import the same way."""
    data = tmp_path / "data"
    (data / "model_judgment" / "j").mkdir(parents=True)
    (data / "model_answer").mkdir()
    (data / "question.jsonl").write_bytes(
        shared("arena-hard-v0.1-newformat", "question.jsonl").read_bytes()
    )
    legacy = [
        json.loads(line)
        for line in (V01 / "model_judgment" / "gpt-4o" / "gpt-4o-mini.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    modern = [
        {
            "uid": r["question_id"], "model": r["model"], "judge": r["judge"], "baseline": "gpt-4-0314",
            "games": [{"score": g["score"], "judgment": {"answer": g["judgment"]},
                       "prompt": [{"role": "system", "content": "..."}, {"role": "user", "content": g["user_prompt"]}]}
                      for g in r["games"]],
        }
        for r in legacy
    ]  # fmt: skip
    (data / "model_judgment" / "j" / "gpt-4o-mini.jsonl").write_text(
        "\n".join(map(json.dumps, modern)), encoding="utf-8"
    )
    assert (
        main(
            ["import", "arena-hard-auto", str(data), "--judge", "j", "--out", str(tmp_path / "out")]
        )
        == 0
    )
    games = read_games([tmp_path / "out"]).games
    row = next(
        r
        for r in leaderboard(from_games(games), baseline="gpt-4-0314", rounds=5, seed=1).rows
        if r.model == "gpt-4o-mini"
    )
    assert row.score == pytest.approx(
        published_v01_score(V01 / "model_judgment" / "gpt-4o" / "gpt-4o-mini.jsonl")[0], abs=1e-9
    )
    assert all(
        g["style"]["model"]["token_len"] > 0 for g in games
    )  # answers recovered from the prompt messages
