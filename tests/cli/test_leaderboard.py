"""``arenahard leaderboard`` end to end on real data: the shared battle file, and every shared
arena-hard judgment file imported into Inspect logs and read back by the real log reader."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.cli import main
from tests.helpers.ranking_outputs import AGREEMENT_FLAGS, agreed_records
from tests.helpers.real_judgments import BASELINE, judgment_games
from tests.helpers.shared_data import shared

BATTLE_FILE = ("battles", "lmarena_74e8b6f_arena_hard_battles.jsonl")
# points and weight of the *evaluated model* for each label, by the model's position
MODEL_SIDE = {
    "A": {"A>>B": (1.0, 3), "A>B": (1.0, 1), "A=B": (0.5, 1), "B>A": (0.0, 1), "B>>A": (0.0, 3)},
    "B": {"A>>B": (0.0, 3), "A>B": (0.0, 1), "A=B": (0.5, 1), "B>A": (1.0, 1), "B>>A": (1.0, 3)},
}


def expected_scores(games: list[dict]) -> dict[str, tuple[float, int, int]]:
    """(score %, parsed games, unparsed games) per model, counted directly from the labels."""
    tally: dict[str, list[float]] = {}
    for g in games:
        t = tally.setdefault(g["model"], [0.0, 0.0, 0, 0])
        if g["label"] is None:
            t[3] += 1
            continue
        points, weight = MODEL_SIDE[g["model_position"]][g["label"]]
        t[0], t[1], t[2] = t[0] + points * weight, t[1] + weight, t[2] + 1
    return {m: (100 * won / total, n, bad) for m, (won, total, n, bad) in tally.items()}


@pytest.fixture
def imported_logs(tmp_path: Path) -> Path:
    """Every shared v0.1 judgment folder imported as Inspect logs (gpt-4o's twice: a re-run)."""
    from inspect_arenahard.logs.importer import import_judgments

    data = shared("arena-hard-v0.1")
    for judge_dir in sorted(p.name for p in (data / "model_judgment").iterdir()):
        import_judgments(data, judge_dir, tmp_path / "logs")
    import_judgments(data, "gpt-4o", tmp_path / "logs" / "rerun")
    return tmp_path / "logs"


@pytest.fixture
def fake_logs(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """Serve ``judgment_games()`` (editable records) as the log reader's answer."""
    from inspect_arenahard.logs import ranked_games
    from inspect_arenahard.logs.reader import LogGames

    games = judgment_games()
    monkeypatch.setattr(
        ranked_games, "read_games", lambda paths, on_sample=None: LogGames(games=games)
    )
    return games


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["leaderboard", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.shared_data
def test_logs_pool_all_judges_and_count_unparsed_games(
    imported_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_logs = judgment_games()
    out_json = tmp_path / "lb.json"
    code, out, err = run_cli(
        [str(imported_logs), "--rounds", "20", "--json", str(out_json)], capsys
    )
    assert code == 0, err
    assert err.count("superseded:") == 2  # gpt-4o's judge folder was imported twice
    assert "judges pooled:" in out and "4 games excluded" in out
    records = json.loads(out_json.read_text())
    judging = (
        "judges judge_flags self_judged comparable_group shared_judge_share interval_meaningful"
    )
    excluded = "excluded excluded_unparsed excluded_partners excluded_self"
    fields = (
        f"model score lower upper n avg_tokens {excluded} ci_method {judging} flags generated_by"
    )
    assert all(list(r) == fields.split() for r in records)
    # arenahard audit: no real model is flagged but Athene, verbose under the gpt-3.5 judge
    assert {r["model"]: r["flags"] for r in records if r["flags"]} == {
        "Nexusflow__Athene-V2-Chat": ["verbose"]
    }
    by_model = {r["model"]: r for r in records}
    for model, (score, n, bad) in expected_scores(fake_logs).items():
        assert by_model[model]["score"] == pytest.approx(score, abs=1e-9)
        assert (by_model[model]["n"], by_model[model]["excluded"]) == (n, bad)
    assert by_model[BASELINE]["score"] == 50.0 and by_model[BASELINE]["excluded"] == 4
    assert by_model[BASELINE]["excluded_unparsed"] == 4  # game rule (v0.1): no partners dropped
    phi = [g for g in fake_logs if g["style"] and g["game"] == 1]
    assert by_model["phi-3-medium-4k-instruct"]["avg_tokens"] == pytest.approx(
        np.mean([g["style"]["model"]["token_len"] for g in phi])
    )
    assert (
        by_model["gpt-4o"]["avg_tokens"] > 0
    )  # computed from answers recovered from the judge prompts
    assert [r["score"] for r in records] == sorted((r["score"] for r in records), reverse=True)
    _check_who_judged_whom(records, out, fake_logs)


def _check_who_judged_whom(records: list[dict], out: str, games: list[dict]) -> None:
    """The four real judges each scored different models: who judged whom is on every row, the
    judge graph splits the models into four groups ranked apart (the baseline anchors them all),
    gpt-4o is judged by itself and gpt-4o-mini by its family, and no real judge is flagged."""
    counts: dict[str, dict[str, int]] = {}
    for g in games:
        if g["label"] is not None:
            for model in (g["model"], g["baseline"]):
                per_judge = counts.setdefault(model, {})
                per_judge[g["judge"]] = per_judge.get(g["judge"], 0) + 1
    by_model = {r["model"]: r for r in records}
    assert {m: r["judges"] for m, r in by_model.items()} == counts
    assert all(r["judge_flags"] == [] and r["interval_meaningful"] for r in records)
    groups = {m: r["comparable_group"] for m, r in by_model.items()}
    assert groups.pop(BASELINE) is None
    assert len(set(groups.values())) == 4 and groups["gpt-4o"] == groups["gpt-4o-mini"]
    assert {m: r["self_judged"] for m, r in by_model.items() if r["self_judged"]} == {
        "gpt-4o": 1.0, "gpt-4o-mini": 1.0,
    }  # fmt: skip
    assert "not comparable across judges" in out and "4 groups" in out
    lines = {
        line.split()[1]: line.split()
        for line in out.splitlines()
        if line[:5].strip() in "-1234" and len(line.split()) > 8
    }
    assert lines["Meta-Llama-3.1-8B-Instruct"][0] == "1" and lines["gpt-4o-mini"][0] == "2"
    assert lines["gpt-4-0314"][0] == "-"
    assert "self-judged 100%" in " ".join(lines["gpt-4o"])


@pytest.mark.shared_data
def test_judge_filter_and_strong_weight(
    imported_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_logs = judgment_games()
    out_json = tmp_path / "lb.json"
    code, _, err = run_cli(
        [
            str(imported_logs),
            "--judge",
            "gpt-4o",
            "--strong-weight",
            "1",
            "--rounds",
            "5",
            "--json",
            str(out_json),
        ],
        capsys,
    )
    assert code == 0, err
    records = {r["model"]: r["score"] for r in json.loads(out_json.read_text())}
    assert set(records) == {"gpt-4o", "gpt-4o-mini", BASELINE}
    mini = [g for g in fake_logs if g["model"] == "gpt-4o-mini"]
    plain = [MODEL_SIDE[g["model_position"]][g["label"]][0] for g in mini]
    assert records["gpt-4o-mini"] == pytest.approx(100 * np.mean(plain), abs=1e-9)
    code, _, err = run_cli([str(imported_logs), "--judge", "nobody"], capsys)
    assert code == 2 and "no battles with judge 'nobody'" in err and "gpt-4o" in err


@pytest.mark.shared_data
def test_several_categories_give_pooled_and_per_category_tables(
    fake_logs: list[dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for g in fake_logs:
        g["category"] = "chat" if g["judge"] == "gpt-4o" else "code"
    out_csv = tmp_path / "lb.csv"
    code, out, err = run_cli(
        ["logs/", "--rounds", "5", "--csv", str(out_csv), "--no-audit"], capsys
    )
    assert code == 0, err
    assert [line.split(" | ")[0] for line in out.splitlines() if line.startswith("category:")] == [
        "category: all",
        "category: chat",
        "category: code",
    ]
    rows = list(csv.DictReader(out_csv.open()))
    assert list(rows[0]) == [
        "category",
        "model",
        "score",
        "lower",
        "upper",
        "n",
        "avg_tokens",
        "excluded",
        "excluded_unparsed",
        "excluded_partners",
        "excluded_self",
        "ci_method",
        "judges",
        "judge_flags",
        "self_judged",
        "comparable_group",
        "shared_judge_share",
        "interval_meaningful",
    ]
    # each table says who judged its rows: per category, only that category's judges
    judges = {(r["category"], r["model"]): r["judges"] for r in rows}
    assert judges["chat", "gpt-4o"] == "gpt-4o=258" and judges["all", "gpt-4o"] == "gpt-4o=258"
    assert judges["code", BASELINE].split(";") == [
        "gemini-1.5-pro-api-preview=14", "gpt-3.5-turbo-0125=214", "gpt-4-1106-preview=162",
    ]  # fmt: skip
    pooled = {r["model"]: float(r["score"]) for r in rows if r["category"] == "all"}
    chat = {r["model"]: float(r["score"]) for r in rows if r["category"] == "chat"}
    assert set(chat) == {"gpt-4o", "gpt-4o-mini", BASELINE}
    assert chat["gpt-4o"] == pytest.approx(
        pooled["gpt-4o"], abs=1e-9
    )  # every battle is against the baseline


@pytest.mark.shared_data
def test_battle_file_writes_json_csv_and_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = {ext: tmp_path / f"lb.{ext}" for ext in ("json", "csv", "png")}
    battles = str(shared(*BATTLE_FILE))
    code, out, err = run_cli(
        ["--battles", battles, "--baseline", "claude-3-haiku-20240307", "--rounds", "30", "--seed", "3",
         "--json", str(paths["json"]), "--csv", str(paths["csv"]), "--plot", str(paths["png"])],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "claude-3-haiku-20240307 (baseline)" in out
    records = json.loads(paths["json"].read_text())
    assert records[0]["model"] == "claude-3-5-sonnet-20240620" and records[-1]["score"] == 50.0
    assert [r["model"] for r in csv.DictReader(paths["csv"].open())] == [
        r["model"] for r in records
    ]
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, _ = run_cli(
        ["--battles", battles, "--method", "mean", "--rounds", "30", "--json", str(paths["json"])],
        capsys,
    )
    mean = {r["model"]: r["score"] for r in json.loads(paths["json"].read_text())}
    assert code == 0 and mean == pytest.approx({r["model"]: r["score"] for r in records}, abs=1e-9)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"question_id": 1, "model_a": "x", "model_b": "y", "winner": "model_a"}', "{oops"],
            ":2: not valid JSON",
        ),
        (
            ['{"question_id": 1, "model_a": "x", "winner": "model_a"}'],
            ":1: missing field 'model_b'",
        ),
        (
            ['{"question_id": 1, "model_a": "x", "model_b": "y", "winner": "draw"}'],
            ":1: field 'winner' is 'draw'",
        ),
    ],
)
def test_bad_battle_file_names_file_and_line(
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(["--battles", str(path)], capsys)
    assert code == 2 and f"{path}{message}" in err


@pytest.mark.shared_data
def test_argument_errors_are_clear(
    fake_logs: list[dict], capsys: pytest.CaptureFixture[str]
) -> None:
    battles = str(shared(*BATTLE_FILE))
    cases = [
        (
            ["--battles", battles, "--strong-weight", "2"],
            "battle files already repeat strong verdicts",
        ),
        ([], "give LOG paths or --battles"),
        (["logs/", "--battles", battles], "give LOG paths or --battles"),
        (["--battles", battles, "--style-control", "length"], "have none"),
        (["logs/", "--style-control", "length"], "lack it"),
        (["logs/", "--method", "mean", "--style-control", "length"], "--method bt"),
        (["logs/", "--baseline", "gpt-2"], "baseline 'gpt-2' has no battles"),
    ]
    for args, message in cases:
        code, _, err = run_cli(args, capsys)
        assert code == 2 and message in err, (args, err)


@pytest.mark.shared_data
def test_honest_interval_by_default_and_the_official_one_with_the_flag(
    imported_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the shared v0.1 judgments: the prompt-clustered interval unless ``--ci-method official``
    asks for the published row bootstrap, which is narrower and says why it is not trusted."""
    honest_json, official_json = tmp_path / "honest.json", tmp_path / "official.json"
    code, out, _ = run_cli([str(imported_logs), "--no-audit", "--json", str(honest_json)], capsys)
    assert code == 0 and "95% CI: prompt-clustered sandwich over 129 prompts" in out
    assert "official" not in out.split("\n")[0]
    code, out, _ = run_cli(
        [str(imported_logs), "--no-audit", "--ci-method", "official", "--json", str(official_json)], capsys
    )  # fmt: skip
    assert code == 0 and "95% CI: official row bootstrap, 100 rounds" in out
    assert "ignores prompt pairing" in out and "x3 rows" in out
    honest = {r["model"]: r for r in json.loads(honest_json.read_text())}
    official = {r["model"]: r for r in json.loads(official_json.read_text())}
    assert {r["ci_method"] for r in honest.values()} == {"sandwich"}
    assert {r["ci_method"] for r in official.values()} == {"official"}
    for model, row in honest.items():
        assert row["score"] == official[model]["score"]  # point estimates stay official
        if row["model"] != BASELINE and row["n"] >= 100:  # (phi-3 has 7 prompts: no asymptotics)
            assert row["upper"] - row["lower"] > official[model]["upper"] - official[model]["lower"]


@pytest.mark.shared_data
@pytest.mark.parametrize("flags", AGREEMENT_FLAGS)
def test_cli_json_html_data_and_dataframe_agree(
    imported_logs: Path, tmp_path: Path, flags: list[str]
) -> None:
    """One ranking service: the same options give the same numbers in all three outputs."""
    assert len(agreed_records(imported_logs, flags, tmp_path)) == 6


@pytest.fixture
def collector_at_ranking(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Filled when the command ranks: how many objects are frozen and whether the collector runs."""
    import gc

    from inspect_arenahard.stats import ranking

    seen: dict[str, object] = {}
    real_rank = ranking.rank

    def rank(inputs: object, options: object) -> object:
        seen.update(frozen=gc.get_freeze_count(), enabled=gc.isenabled())
        return real_rank(inputs, options)  # type: ignore[arg-type]

    monkeypatch.setattr(ranking, "rank", rank)
    return seen


@pytest.mark.shared_data
def test_a_battle_files_start_up_is_left_out_of_collections_until_the_command_ends(
    collector_at_ranking: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    """The modules imported and the battles read live until the command ends: the ranking runs
    with them frozen out of the collector, which is left as it was found afterwards (also when
    the command fails)."""
    import gc

    battles = str(shared(*BATTLE_FILE))
    code, out, _ = run_cli(
        ["--battles", battles, "--ci-method", "official", "--rounds", "5"], capsys
    )
    assert code == 0 and "claude-3-haiku-20240307" in out
    assert (
        collector_at_ranking["enabled"]
        and isinstance(collector_at_ranking["frozen"], int)
        and collector_at_ranking["frozen"] > 1000
    )
    assert gc.isenabled() and gc.get_freeze_count() == 0
    code, _, err = run_cli(["--battles", battles, "--strong-weight", "2"], capsys)
    assert code == 2 and "--strong-weight applies to judge logs" in err
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.freeze()  # a caller that froze its own heap keeps it frozen
    try:
        frozen = gc.get_freeze_count()
        code, _, _ = run_cli(["--battles", battles, "--rounds", "5"], capsys)
        assert code == 0 and gc.get_freeze_count() > frozen // 2  # (less what was freed)
    finally:
        gc.unfreeze()


@pytest.mark.shared_data
def test_judge_logs_are_read_with_the_collector_as_the_caller_left_it(
    tmp_path: Path, collector_at_ranking: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading judge logs makes garbage (parsed records): the collector runs as usual and
    nothing is frozen out of it."""

    from inspect_arenahard.logs.importer import import_judgments

    import_judgments(shared("arena-hard-v0.1"), "gpt-4o", tmp_path / "logs")
    code, out, _ = run_cli([str(tmp_path / "logs"), "--rounds", "5"], capsys)
    assert code == 0 and "gpt-4o" in out
    assert collector_at_ranking == {"frozen": 0, "enabled": True}


def test_a_bad_flag_is_refused_before_any_input_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad ranking flag costs no read: the flag is named, not the (missing) inputs."""
    for inputs in ([str(tmp_path / "no-logs")], ["--battles", str(tmp_path / "none.jsonl")]):
        code, _, err = run_cli([*inputs, "--rounds", "0"], capsys)
        assert code == 2 and "bootstrap rounds must be at least 1, got 0" in err
