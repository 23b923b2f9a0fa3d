"""Every judged game counted exactly once (issue #23): split runs pool, a shorter re-run replaces
only what it re-judged, non-verdict settings never double a model, the strong weight travels in
the record, and damaged, bookkeeping, unparsed and foreign logs each end in one named outcome."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.stats.battles import from_games
from inspect_arenahard.stats.game_record import SCORE_RECORDS
from tests.helpers.judge_runs import JudgeScript, damage_member, prompt_ids, run

pytestmark = pytest.mark.shared_data

CANDIDATE = "mockllm/candidate"


def _leaderboard(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str
) -> tuple[int, dict[str, dict[str, object]], str, str]:
    """(exit code, rows by model, stdout, stderr) of ``arenahard leaderboard ARGS``."""
    out = tmp_path / "lb.json"
    out.unlink(missing_ok=True)
    code = main(["leaderboard", *args, "--rounds", "5", "--json", str(out)])
    captured = capsys.readouterr()
    rows = {r["model"]: r for r in json.loads(out.read_text())} if out.exists() else {}
    return code, rows, captured.out, captured.err


def test_split_runs_pool_and_a_shorter_rerun_replaces_only_what_it_rejudged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = prompt_ids(20)
    split = tmp_path / "split"
    run(split, JudgeScript(), sample_id=ids[:10])
    run(split, JudgeScript(), sample_id=ids[10:])
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(split), "--no-audit")
    assert code == 0 and rows[CANDIDATE]["n"] == 40  # the older half is no longer "superseded"
    assert "games: 40 read from 2 logs, 0 replaced" in err

    # a full run, then a --limit 5 re-run whose judge now prefers the baseline on every prompt
    rerun = tmp_path / "rerun"
    full = run(rerun, JudgeScript("wins"), limit=20)
    short = run(rerun, JudgeScript("loses"), limit=5)
    result = read_games([str(rerun)])
    assert len(result.games) == 40 and result.counts()["replaced"] == 10
    from_short = [g for g in result.games if g["log"] == short.location]
    assert len(from_short) == 10 and {g["question_id"] for g in from_short} == set(ids[:5])
    assert sum(g["log"] == full.location for g in result.games) == 30
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(rerun), "--no-audit")
    assert code == 0 and rows[CANDIDATE]["n"] == 40
    assert f"replaced: 10 games of {full.location} re-judged in newer {short.location}" in err
    assert "games: 40 read from 2 logs, 10 replaced by newer judgments" in err


def test_a_rerun_with_other_retries_does_not_double_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(tmp_path / "logs", JudgeScript(), limit=20)
    run(tmp_path / "logs", JudgeScript(), limit=20, judge_retries=2)
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(tmp_path / "logs"))
    assert code == 0 and rows[CANDIDATE]["n"] == 40  # not 80
    assert rows[CANDIDATE]["flags"] == []  # every answer seen once: no "null-model" repeats
    assert "40 replaced by newer judgments" in err


def test_the_strong_weight_travels_in_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = JudgeScript("strong_wins", {"Use ABC": "loses", "SOLVE THIS": "loses"})  # weak losses
    logs = tmp_path / "w1"
    run(logs, script, limit=8, strong_weight=1)
    games = read_games([str(logs)]).games
    assert {g["strong_weight"] for g in games} == {1}
    assert set(from_games(games).weight) == {1.0}  # the records' own weight, not 3
    code, rows, _, _ = _leaderboard(capsys, tmp_path, str(logs), "--no-audit")
    _, weight1, _, _ = _leaderboard(
        capsys, tmp_path, str(logs), "--no-audit", "--strong-weight", "1"
    )
    _, weight3, _, _ = _leaderboard(
        capsys, tmp_path, str(logs), "--no-audit", "--strong-weight", "3"
    )
    assert code == 0 and rows == weight1 and rows != weight3

    # metrics ranks with the records' weight too (it has no --strong-weight to forget)
    run(logs, script, model="second", limit=8, strong_weight=1)
    _, weight1, _, _ = _leaderboard(
        capsys, tmp_path, str(logs), "--no-audit", "--strong-weight", "1"
    )
    _, weight3, _, _ = _leaderboard(
        capsys, tmp_path, str(logs), "--no-audit", "--strong-weight", "3"
    )
    reference = tmp_path / "ref.csv"
    reference.write_text(
        "model,rating,rating_q025,rating_q975\n"
        "mockllm/candidate,1200,1195,1205\nmockllm/second,1150,1145,1155\ngpt-4-0314,1100,1095,1105\n"
    )
    out = tmp_path / "metrics.json"
    assert (
        main(
            [
                "metrics",
                str(logs),
                "--reference",
                str(reference),
                "--rounds",
                "5",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    scores = {m["benchmark_model"]: m["score"] for m in json.loads(out.read_text())["models"]}
    assert scores == pytest.approx({m: r["score"] for m, r in weight1.items()})
    assert scores != pytest.approx({m: r["score"] for m, r in weight3.items()})

    # another model judged with weight 3 beside them: refused in one line naming both weights
    run(logs, script, model="other", limit=8)
    code, _, _, err = _leaderboard(capsys, tmp_path, str(logs), "--no-audit")
    assert code == 2
    [line] = [line for line in err.splitlines() if line.startswith("arenahard leaderboard: error")]
    assert "different strong weights (1 in " in line and ", 3 in " in line
    code, _, _, _ = _leaderboard(capsys, tmp_path, str(logs), "--no-audit", "--strong-weight", "3")
    assert code == 0


def test_different_verdict_settings_are_refused_or_pooled_with_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    run(logs, JudgeScript(), limit=4)
    run(logs, JudgeScript(), model="other", limit=4, judge_max_tokens=100)
    code, _, _, err = _leaderboard(capsys, tmp_path, str(logs), "--no-audit")
    assert code == 2 and "max_tokens: 4096 in " in err and "100 in " in err
    code, rows, out, _ = _leaderboard(capsys, tmp_path, str(logs), "--no-audit", "--pool-settings")
    assert code == 0 and "pooled across differing judge settings" in out
    assert all(row["pooled_settings"] == ["max_tokens"] for row in rows.values())


def test_an_all_unparsed_run_says_no_judged_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run(tmp_path / "logs", JudgeScript("unparsed"), limit=3)
    # Inspect writes NaN for a metric over no scored sample: the header must still be read
    assert "NaN" in zipfile.ZipFile(log.location).read("header.json").decode()
    code, _, _, err = _leaderboard(capsys, tmp_path, str(tmp_path / "logs"), "--no-audit")
    assert code == 2 and "no judged games (6 unparsed)" in err
    assert "not a readable Inspect log" not in err


def test_a_damaged_sample_member_or_summaries_file_is_named_and_the_rest_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = run(tmp_path / "logs", JudgeScript(), limit=4)
    members = [n for n in zipfile.ZipFile(log.location).namelist() if n.startswith("samples/")]
    damage_member(log.location, members[0])
    # the audit reads the records in the summaries: the damaged member is not needed
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(tmp_path / "logs"))
    assert code == 0 and rows[CANDIDATE]["n"] == 8 and "partly read" not in err
    assert main(["audit", str(tmp_path / "logs")]) == 0
    assert f"{CANDIDATE}  4" in capsys.readouterr().out

    # a log written before the records is read in full: the damaged member is named and skipped
    log = run(tmp_path / "old", JudgeScript(), limit=4)
    without = read_eval_log(log.location)
    assert without.eval.metadata is not None and without.eval.metadata.pop(SCORE_RECORDS)
    write_eval_log(without, log.location)
    members = [n for n in zipfile.ZipFile(log.location).namelist() if n.startswith("samples/")]
    damage_member(log.location, members[0])
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(tmp_path / "old"))
    assert code == 0 and rows[CANDIDATE]["n"] == 8  # the summaries are intact
    assert f"audit: partly read {log.location}: 1 damaged members" in err and members[0] in err
    assert main(["audit", str(tmp_path / "old")]) == 0
    captured = capsys.readouterr()
    assert members[0] in captured.err and f"{CANDIDATE}  3" in captured.out

    # summaries.json damaged as well: the sample members are read instead
    damage_member(log.location, "summaries.json")
    result = read_games([str(tmp_path / "old")])
    assert len(result.games) == 6 and result.counts()["damaged"] == 2
    assert any("summaries.json" in d for d in result.runs[0].damaged)


def test_eval_set_folders_truncated_files_and_foreign_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai import Task, eval, eval_set, task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.solver import TaskState

    from inspect_arenahard import arenahard
    from tests.helpers.judge_runs import v01
    from tests.helpers.scripted import scripted_model

    logs = tmp_path / "set"
    ok, _ = eval_set(
        arenahard(data_dir=v01(), cache=False),
        log_dir=str(logs),
        model=scripted_model("candidate", lambda m: "Answer: " + m[-1].text[:60]),
        model_roles={"judge": scripted_model("judge", JudgeScript().reply)},
        limit=3,
        display="none",
    )
    assert ok and {"eval-set.json", "logs.json"} <= {p.name for p in logs.iterdir()}
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(logs), "--no-audit")
    assert code == 0 and rows[CANDIDATE]["n"] == 6
    assert "ignored" not in err and "0 files skipped" in err  # bookkeeping is silent

    @scorer(metrics=[mean()], name="pairwise_judge")
    def foreign_scorer():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=1, metadata={"games": [], "baseline": "x"})

        return score

    @task
    def foreign() -> Task:
        return Task(dataset=[Sample(input="hi")], scorer=foreign_scorer())

    [other] = eval(
        foreign(), model=scripted_model("x", lambda m: "hi"), log_dir=str(logs), display="none"
    )
    (logs / "truncated.eval").write_bytes(Path(other.location).read_bytes()[:200])
    (logs / "empty.eval").write_bytes(b"")
    code, rows, _, err = _leaderboard(capsys, tmp_path, str(logs), "--no-audit")
    assert code == 0 and rows[CANDIDATE]["n"] == 6
    assert f"ignored {other.location}: task foreign is not an arenahard task" in err
    assert "truncated.eval: not a readable Inspect log" in err and "empty.eval" in err
    assert "3 files skipped" in err and "Traceback" not in err
    code = main(["audit", str(logs)])
    captured = capsys.readouterr()
    assert code == 0 and "truncated.eval" in captured.err and "empty.eval" in captured.err
    shutil.rmtree(logs)
    logs.mkdir()
    (logs / "truncated.eval").write_bytes(b"PK\x03\x04 cut short")
    assert main(["audit", str(logs)]) == 2
    assert "truncated.eval" in capsys.readouterr().err


def test_a_log_still_being_written_and_a_cancelled_run_are_read(tmp_path: Path) -> None:
    log = run(tmp_path / "done", JudgeScript(), limit=3)
    running, cancelled = tmp_path / "running" / "running.eval", tmp_path / "cancelled" / "c.eval"
    running.parent.mkdir()
    cancelled.parent.mkdir()
    with zipfile.ZipFile(log.location) as source:
        with zipfile.ZipFile(running, "w") as target:  # only the journal: no header, no summaries
            for info in source.infolist():
                if info.filename.startswith(("_journal/", "samples/")):
                    target.writestr(info, source.read(info.filename))
        with zipfile.ZipFile(cancelled, "w") as target:
            for info in source.infolist():
                data = source.read(info.filename)
                if info.filename == "header.json":
                    header = json.loads(data)
                    header["status"] = "cancelled"
                    data = json.dumps(header).encode()
                target.writestr(info, data)
    for folder in ("running", "cancelled"):
        result = read_games([str(tmp_path / folder)])
        assert len(result.games) == 6 and not result.ignored, folder
    assert any("partial run" in note for note in read_games([str(cancelled)]).notes())


def test_settings_a_run_does_not_record_differ_from_nothing() -> None:
    from inspect_arenahard.errors import UserError
    from inspect_arenahard.logs.reader import check_settings

    live = json.dumps({"temperature": 0.0, "max_tokens": 4096, "neutralisation": 1})
    imported, hot = "{}", json.dumps({"temperature": 0.7, "max_tokens": 4096})
    games = [{"settings": s, "log": name} for s, name in ((live, "a"), (imported, "b"))]
    assert check_settings(games) == []  # type: ignore[arg-type]
    with pytest.raises(UserError, match=r"temperature: 0\.0 in a, 0\.7 in c"):
        check_settings([*games, {"settings": hot, "log": "c"}])  # type: ignore[list-item]
    assert check_settings([*games, {"settings": hot, "log": "c"}], pool=True) == ["temperature"]  # type: ignore[list-item]
