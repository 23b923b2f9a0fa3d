"""Importing arena-hard-auto v2.0 results faithfully (issue #17).

A real-shaped v2.0 folder: the real questions and stored o3-mini answers from
``../shared/data/arena-hard-v2.0``, synthetic gemini-2.0-flash answers for creative writing
(only the hard-prompt baseline is published there) and two judged models, with 2025-schema
judgment records naming their own baseline and category, strong verdicts, ties and null games
(the whole game ``null``, and ``score: null``). The imported logs' per-category leaderboards are
checked against the official v2.0 rules recomputed here from the raw records.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from inspect_arenahard.cli import main
from inspect_arenahard.stats.estimates import interval_label
from tests.helpers.ranking_outputs import AGREEMENT_FLAGS, agreed_records
from tests.helpers.shared_data import reads_shared_data
from tests.helpers.v2_judgments import (
    GEMINI,
    JUDGE,
    O3,
    import_judgments,
    read_jsonl,
    write_jsonl,
    write_v2_folder,
)  # fmt: skip


@pytest.fixture(scope="module")
@reads_shared_data
def v2_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_v2_folder(tmp_path_factory.mktemp("v2") / "arena-hard-v2.0")


def official_v2(folder: Path, unparsed: str = "pair") -> dict[str, dict[str, tuple[float, int]]]:
    """Per category: model → (mean score %, games kept), from the raw records by the 2025 rules:
    game 1 has the baseline as A; a strong verdict counts 3 times; a record with a null game or a
    null score is dropped whole (``pair``), or only that game (``game``)."""
    value = {
        "A>>B": (0.0, 3),
        "A>B": (0.0, 1),
        "A=B": (0.5, 1),
        "B>A": (1.0, 1),
        "B>>A": (1.0, 3),
    }  # model = B
    tally: dict[str, dict[str, list[float]]] = {}
    for path in sorted((folder / "model_judgment" / JUDGE).glob("*.jsonl")):
        for record in read_jsonl(path):
            scores = [g["score"] if g else None for g in record["games"]]
            if unparsed == "pair" and None in scores:
                continue
            t = tally.setdefault(record["category"], {}).setdefault(record["model"], [0.0, 0.0, 0])
            for number, score in enumerate(scores, start=1):
                if score is None:
                    continue
                points, weight = value[score]
                t[0] += (points if number == 1 else 1 - points) * weight
                t[1] += weight
                t[2] += 1
    return {
        c: {m: (100 * p / w, n) for m, (p, w, n) in models.items()} for c, models in tally.items()
    }


def linked_folder(v2_folder: Path, tmp_path: Path) -> Path:
    """A data folder sharing ``v2_folder``'s questions and answers, with an empty judgment folder."""
    data = tmp_path / "data"
    (data / "model_judgment" / JUDGE).mkdir(parents=True)
    (data / "model_answer").symlink_to(v2_folder / "model_answer")
    (data / "question.jsonl").symlink_to(v2_folder / "question.jsonl")
    return data


@pytest.fixture(scope="module")
def imported(v2_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("logs")
    assert import_judgments(v2_folder, out) == 0
    return out


def test_fixture_has_every_case(v2_folder: Path) -> None:
    games = [
        g
        for p in (v2_folder / "model_judgment" / JUDGE).glob("*.jsonl")
        for r in read_jsonl(p)
        for g in r["games"]
    ]
    scores = [g["score"] if g else "null game" for g in games]
    assert {"null game", None, "A>>B", "B>>A", "A=B", "A>B", "B>A"} <= set(scores)


def _assert_scores(
    got: dict[str, tuple[float, int]], expected: dict[str, tuple[float, int]]
) -> None:
    """Every expected model's (score, n): the score to 1e-9, n exactly (pytest.approx takes no
    nested containers since pytest 9.2)."""
    assert set(expected) <= set(got), sorted(set(expected) - set(got))
    for model, (score, n) in expected.items():
        assert got[model][0] == pytest.approx(score, abs=1e-9) and got[model][1] == n, model


def test_per_category_leaderboards_equal_the_official_v2_rules(
    v2_folder: Path, imported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "lb.json"
    assert (
        main(
            [
                "leaderboard",
                str(imported),
                "--rounds",
                "20",
                "--ci-method",
                "official",
                "--json",
                str(out_json),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    headings = [line for line in text.splitlines() if line.startswith("category:")]
    official = interval_label("official", 0.95, 20, 0)
    assert headings == [
        f"category: creative_writing | baseline: {GEMINI} | method: mean | {official} | judge: {JUDGE}",
        f"category: hard_prompt | baseline: {O3} | method: mean | {official} | judge: {JUDGE}",
        f"category: combined | baseline: each category's own — creative_writing: {GEMINI} (40.0% of prompts), "
        f"hard_prompt: {O3} (60.0% of prompts) | method: mean | {official} | judge: {JUDGE}",
    ]
    assert "pair rule" in text
    expected = official_v2(v2_folder)
    records = json.loads(out_json.read_text())
    for category, models in expected.items():
        got = {r["model"]: (r["score"], r["n"]) for r in records if r["category"] == category}
        _assert_scores(got, models)
    combined = {r["model"]: r["score"] for r in records if r["category"] == "combined"}
    judged = set(expected["creative_writing"]) & set(expected["hard_prompt"])
    assert judged and set(combined) >= judged
    for model in judged:  # prompt-weighted: 100 creative-writing and 150 hard prompts
        share = {"creative_writing": 0.4, "hard_prompt": 0.6}
        assert combined[model] == pytest.approx(
            sum(share[c] * expected[c][model][0] for c in share), abs=1e-9
        )
    game_rule = official_v2(v2_folder, "game")
    assert (
        main(
            [
                "leaderboard",
                str(imported),
                "--rounds",
                "5",
                "--unparsed",
                "game",
                "--json",
                str(out_json),
            ]
        )
        == 0
    )
    records = json.loads(out_json.read_text())
    for category, models in game_rule.items():
        got = {r["model"]: (r["score"], r["n"]) for r in records if r["category"] == category}
        _assert_scores(got, models)
    assert game_rule != expected  # the rules really differ on this data


def test_each_record_gets_its_own_baseline_answer_and_style(imported: Path) -> None:
    for info in list_eval_logs(str(imported)):
        log = read_eval_log(info.name)
        assert log.eval.task == "arenahard" and log.eval.metadata["arenahard_version"] == "v2.0"
        for sample in log.samples or []:
            meta = sample.scores["pairwise_judge"].metadata  # type: ignore[index]
            if sample.metadata["category"] == "creative_writing":
                assert meta["baseline"] == sample.metadata["baseline_model"] == GEMINI
                assert sample.metadata["baseline_answer"].startswith("A short poem about")
                assert meta["style"]["baseline"]["token_len"] < 40
            else:
                assert meta["baseline"] == O3 and meta["style"]["baseline"]["token_len"] > 40


def test_null_games_are_unparsed_never_ties(imported: Path, v2_folder: Path) -> None:
    raw = {
        (r["model"], r["uid"]): r["games"]
        for p in (v2_folder / "model_judgment" / JUDGE).glob("*.jsonl")
        for r in read_jsonl(p)
    }
    seen_null = 0
    for info in list_eval_logs(str(imported)):
        log = read_eval_log(info.name)
        for sample in log.samples or []:
            games = sample.scores["pairwise_judge"].metadata["games"]  # type: ignore[index]
            for game, original in zip(games, raw[(log.eval.model, str(sample.id))]):
                if original is None or original["score"] is None:
                    seen_null += original is None
                    assert game["label"] is None and game["parsed"] is False
                else:
                    assert game["label"] == original["score"]
    assert seen_null > 0


def test_inspect_log_list_shows_the_task(imported: Path) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "log", "list", "--log-dir", str(imported), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    infos = json.loads(listed.stdout)
    assert len(infos) == 2 and {i["task"] for i in infos} == {"arenahard"}
    assert all(i["task_id"].isalnum() and len(i["task_id"]) >= 16 for i in infos)


def test_a_damaged_judgment_file_fails_the_whole_import(
    v2_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = linked_folder(v2_folder, tmp_path)
    good = (v2_folder / "model_judgment" / JUDGE / "markdown-model.jsonl").read_text(
        encoding="utf-8"
    )
    (data / "model_judgment" / JUDGE / "a-good.jsonl").write_text(good, encoding="utf-8")
    lines = (
        (v2_folder / "model_judgment" / JUDGE / "terse-model.jsonl")
        .read_text(encoding="utf-8")
        .split("\n")
    )
    lines[6] = lines[6][: len(lines[6]) // 2]  # a truncated write
    bad = data / "model_judgment" / JUDGE / "b-damaged.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert import_judgments(data, out) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{bad}:7: not valid JSON" in err
    assert list(out.iterdir()) == []  # nothing written, not even the good file's log
    lines[6] = json.dumps({**json.loads(lines[5]), "games": [None, 3]})
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert import_judgments(data, out) == 2
    assert f"{bad}:7: games[1] must be an object or null, got int" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_baseline_option_fills_gaps_and_warns_on_contradiction(
    v2_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = linked_folder(v2_folder, tmp_path)
    records = read_jsonl(v2_folder / "model_judgment" / JUDGE / "terse-model.jsonl")
    gaps = records[:2] + records[-2:]  # two hard prompts, two creative-writing prompts
    named = records[2:-2]
    write_jsonl(
        data / "model_judgment" / JUDGE / "terse-model.jsonl",
        [{k: v for k, v in r.items() if k != "baseline"} for r in gaps] + named,
    )
    out = tmp_path / "out"
    assert import_judgments(data, out, "--baseline", O3) == 0
    err = capsys.readouterr().err
    creative = sum(r["baseline"] == GEMINI for r in named)
    assert (
        f"{creative} records name baseline '{GEMINI}'; --baseline {O3} applies only to records without one"
        in err
    )
    [info] = list_eval_logs(str(out))
    samples = {str(s.id): s for s in read_eval_log(info.name).samples or []}
    for record in records:
        meta = samples[record["uid"]].scores["pairwise_judge"].metadata  # type: ignore[index]
        assert meta["baseline"] == (O3 if record in gaps else record["baseline"])
    out2 = (
        tmp_path / "out2"
    )  # without --baseline, a record without one gets its category's v2.0 default
    assert import_judgments(data, out2) == 0
    [info] = list_eval_logs(str(out2))
    samples = {str(s.id): s for s in read_eval_log(info.name).samples or []}
    for record in gaps:
        expected = O3 if record["category"] == "hard_prompt" else GEMINI
        assert samples[record["uid"]].scores["pairwise_judge"].metadata["baseline"] == expected  # type: ignore[index]


def test_answers_are_recovered_from_either_judge_prompt(v2_folder: Path, tmp_path: Path) -> None:
    """Without the model's answer file, its answer (and style) comes from game 1's judge prompt,
    or from game 2's when game 1 is null: game 2 shows the model as Assistant A."""
    data = tmp_path / "data"
    (data / "model_judgment" / JUDGE).mkdir(parents=True)
    (data / "model_answer").mkdir()
    for name in (O3, GEMINI):
        (data / "model_answer" / f"{name}.jsonl").symlink_to(
            v2_folder / "model_answer" / f"{name}.jsonl"
        )
    (data / "question.jsonl").symlink_to(v2_folder / "question.jsonl")
    source = v2_folder / "model_judgment" / JUDGE / "markdown-model.jsonl"
    (data / "model_judgment" / JUDGE / "markdown-model.jsonl").symlink_to(source)
    assert import_judgments(data, tmp_path / "out") == 0
    stored = {
        r["uid"]: r["messages"][-1]["content"]["answer"]
        for r in read_jsonl(v2_folder / "model_answer" / "markdown-model.jsonl")
    }
    records = read_jsonl(source)
    assert any(r["games"][0] is None and r["games"][1] is not None for r in records)
    judged = {r["uid"] for r in records if r["games"] != [None, None]}
    [info] = list_eval_logs(str(tmp_path / "out"))
    for sample in read_eval_log(info.name).samples or []:
        if str(sample.id) not in judged:
            continue  # both games null: no prompt to recover from
        assert sample.output.completion == stored[str(sample.id)]
        assert sample.scores["pairwise_judge"].metadata["style"]["model"]["token_len"] > 0  # type: ignore[index]


def test_a_question_judged_twice_keeps_the_later_judgment_and_says_so(
    v2_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = linked_folder(v2_folder, tmp_path)
    records = read_jsonl(v2_folder / "model_judgment" / JUDGE / "terse-model.jsonl")
    rejudged = {**records[0], "games": [None, None]}
    path = data / "model_judgment" / JUDGE / "terse-model.jsonl"
    write_jsonl(path, [*records, rejudged])
    assert import_judgments(data, tmp_path / "out") == 0
    out, err = capsys.readouterr()
    assert (
        f"{path}:{len(records) + 1}: question {records[0]['uid']!r} judged again (first on line 1)"
        in err
    )
    unparsed = sum(
        g is None or g["score"] is None for r in [rejudged, *records[1:]] for g in r["games"]
    )
    assert f": {len(records)} samples, {unparsed} unparsed games" in out and out.startswith(
        "wrote "
    )


@pytest.mark.parametrize("flags", [[], *AGREEMENT_FLAGS])
def test_cli_json_html_data_and_dataframe_agree(
    imported: Path, tmp_path: Path, flags: list[str]
) -> None:
    """One ranking service: the same options give the same numbers in all three outputs,
    the v2.0 combined table included."""
    records = agreed_records(imported, flags, tmp_path)
    assert {r["category"] for r in records} == {"creative_writing", "hard_prompt", "combined"}
