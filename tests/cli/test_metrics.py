"""``arenahard metrics | judges | power`` end to end: real notebook files, and a JSONL of
synthetic game records standing in for logs (the statistics themselves are tested elsewhere;
here the CLI must report what those functions compute, list unmatched models and fail clearly)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.stats import judge_bias as jb
from inspect_arenahard.stats import power as pw
from inspect_arenahard.stats import quality as q
from inspect_arenahard.stats.quality import DEFAULT_CI
from inspect_arenahard.stats.ranking import RankingOptions, rank
from tests.helpers.shared_data import shared

MODELS = {
    "gpt-x": (0.3, 600),
    "claude-y": (0.8, 400),
    "llama-z": (-0.6, 250),
    "mystery": (0.0, 350),
}
JUDGES = ("openai/gpt-judge", "anthropic/claude-judge", "google/gemini-judge")


def _style(tokens: int) -> dict:
    return {
        "token_len": int(tokens),
        "header_count": {"h1": 0, "h2": int(tokens) // 200},
        "list_count": {"ordered": int(tokens) // 150, "unordered": 0},
        "bold_count": {"**": int(tokens) // 300, "__": 0},
    }


def synthetic_games(n_questions: int = 40, seed: int = 0) -> list[dict]:
    """Games against baseline ``base`` by three judges; the gpt judge favours gpt-x and slot A."""
    rng = np.random.default_rng(seed)
    labels = ("B>>A", "B>A", "A=B", "A>B", "A>>B")
    games = []
    for qid in range(n_questions):
        base_tokens = int(rng.integers(200, 500))
        for model, (skill, mean_tokens) in MODELS.items():
            tokens = int(rng.normal(mean_tokens, 60))
            for judge in JUDGES:
                for game, position in ((1, "B"), (2, "A")):
                    strength = skill + (
                        0.8 if judge.startswith("openai") and model.startswith("gpt") else 0.0
                    )
                    strength += 0.4 if (judge.startswith("openai") and position == "A") else 0.0
                    level = int(
                        np.clip(np.round(strength + rng.normal(0, 1.0)), -2, 2)
                    )  # model's view
                    label = labels[level + 2] if position == "A" else labels[2 - level]
                    unparsed = judge.startswith("google") and qid == 0 and game == 2
                    games.append(
                        {
                            "question_id": f"q{qid}",
                            "model": model,
                            "baseline": "base",
                            "judge": judge,
                            "category": "hard",
                            "game": game,
                            "model_position": position,
                            "label": None if unparsed else label,
                            "parsed": not unparsed,
                            "style": {"model": _style(tokens), "baseline": _style(base_tokens)},
                        }
                    )
    return games


@pytest.fixture(scope="module")
def games_file(tmp_path_factory) -> tuple[Path, list[dict]]:
    games = synthetic_games()
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in games) + "\n", encoding="utf-8")
    return path, games


def _reference_csv(path: Path) -> Path:
    rows = [
        ("gpt-x", 1200),
        ("Claude-Y", 1250),
        ("llama-z", 1100),
        ("base", 1180),
        ("not-in-bench", 1000),
    ]
    path.write_text(
        "model,rating,rating_q025,rating_q975\n"
        + "".join(f"{m},{r},{r - 5},{r + 5}\n" for m, r in rows)
    )
    return path


@pytest.mark.shared_data
def test_metrics_on_notebook_files(tmp_path, capsys):
    nb = shared("human_reference", "arena_hard_paper_notebook_20240414")
    out, png = tmp_path / "m.json", tmp_path / "m.png"
    rc = main(
        [
            "metrics",
            "--benchmark",
            str(nb / "bootstrap_stats_arena_hard.jsonl"),
            "--reference",
            str(
                shared(
                    "human_reference",
                    "chatbot_arena_leaderboards_csv",
                    "chatbot_arena_20240329_full.csv",
                )
            ),
            "--map",
            str(nb / "arena_to_arena_hard.json"),
            "--only-mapped",
            "--json",
            str(out),
            "--plot",
            str(png),
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert (
        "only in benchmark (3): gemini-1.5-pro, dbrx-instruct, Snorkel-Mistral-PairRM-DPO" in text
    )
    assert "excluded by --only-mapped) (5)" in text and "pair-rank Brier" in text
    result = json.loads(out.read_text())
    m = result["metrics"]
    assert (m["n_models"], m["n_pairs"]) == (20, 190)
    assert m["separability"] == pytest.approx(0.8421052631578947)
    assert m["brier"] == pytest.approx(0.07047865504650436)
    assert m["spearman"] == pytest.approx(0.932330827067669)
    assert result["separability_all_benchmark_models"] == pytest.approx(302 / 378)
    assert len(result["only_reference"]) == 51 and result["map_direction"] == "reference->benchmark"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.shared_data
def test_metrics_ci_option_uses_bootstrap_percentiles(tmp_path):
    nb = shared("human_reference", "arena_hard_paper_notebook_20240414")
    out = tmp_path / "m.json"
    assert (
        main(
            [
                "metrics",
                "--benchmark",
                str(nb / "bootstrap_stats_arena_hard.jsonl"),
                "--reference",
                str(nb / "bootstrap_stats_20k_votes.jsonl"),
                "--map",
                str(nb / "arena_to_arena_hard.json"),
                "--ci",
                "80",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert result["ci"] == 0.8 and len(result["only_benchmark"]) == 8
    assert result["metrics"]["separability"] == pytest.approx(0.9105263157894737)


def test_metrics_from_games_uses_the_aggregator(tmp_path, games_file, capsys):
    path, games = games_file
    out = tmp_path / "m.json"
    rc = main(
        [
            "metrics",
            "--games",
            str(path),
            "--judge",
            JUDGES[1],
            "--reference",
            str(_reference_csv(tmp_path / "ref.csv")),
            "--rounds",
            "20",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    result = json.loads(out.read_text())
    assert result["only_benchmark"] == ["mystery"] and result["only_reference"] == ["not-in-bench"]
    assert {r["benchmark_model"]: r["reference_model"] for r in result["models"]}[
        "claude-y"
    ] == "Claude-Y"
    assert result["metrics"]["n_models"] == 4  # three contestants and the baseline
    rows = {r["benchmark_model"]: r for r in result["models"]}
    assert (
        rows["base"]["score"] == 50.0
        and rows["claude-y"]["lower"] < rows["claude-y"]["score"] < rows["claude-y"]["upper"]
    )


def test_judges_reports_what_the_statistics_compute(tmp_path, games_file, capsys):
    path, games = games_file
    out = tmp_path / "j.json"
    assert main(["judges", "--games", str(path), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for title in (
        "Position bias and consistency",
        "Judge-judge agreement",
        "Fleiss kappa",
        "Self-bias",
        "Length:",
        "longer answer",
    ):
        assert title in text
    result = json.loads(out.read_text())
    expected = {p.judge: p.to_dict() for p in jb.position_analysis(games)}
    assert {p["judge"]: p for p in result["position"]} == json.loads(json.dumps(expected))
    assert (
        expected["google/gemini-judge"]["n_unparsed"] == 4
        and expected["google/gemini-judge"]["n_incomplete"] == 4
    )
    assert expected["openai/gpt-judge"]["a_share_of_decisive"] > 0.55  # the slot-A bias built in
    fine, _ = jb.judges_agreement(games)
    assert result["agreement"]["five_point"]["fleiss_kappa"] == pytest.approx(fine.fleiss_kappa)
    own = {b["judge"]: b["own_family_shift"] for b in result["self_bias"]}
    assert own["openai/gpt-judge"] == 1.0  # it ranks gpt-x first, the other judges second
    length = result["length"]["judges"]
    assert set(length) == {*JUDGES, jb.VERBOSE_POLICY}
    assert length[jb.VERBOSE_POLICY]["raw"]["spearman"] == pytest.approx(
        1.0
    )  # prefers length by construction
    assert "pearson" in length[JUDGES[0]]["style_controlled"]


def test_judges_with_a_reference_ranking(tmp_path, games_file, capsys):
    path, _ = games_file
    out = tmp_path / "j.json"
    assert (
        main(
            [
                "judges",
                "--games",
                str(path),
                "--reference",
                str(_reference_csv(tmp_path / "ref.csv")),
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert "models without a reference score (1): mystery" in capsys.readouterr().out
    result = json.loads(out.read_text())
    assert all(b["reference"] == "given" for b in result["self_bias"])
    assert all(len(b["rows"]) == 4 for b in result["self_bias"])


def test_power_matches_the_statistics(tmp_path, games_file, capsys):
    path, games = games_file
    out = tmp_path / "p.json"
    assert (
        main(["power", "--games", str(path), "--delta", "5", "--ci", "0.9", "--json", str(out)])
        == 0
    )
    result = json.loads(out.read_text())["judges"]
    assert set(result) == set(JUDGES)
    expected = pw.power_per_judge(games, RankingOptions(ci=0.9), 5.0)[JUDGES[0]].to_dict()
    assert result[JUDGES[0]] == json.loads(json.dumps(expected))
    out = capsys.readouterr().out
    assert "prompts needed" in out and "prompt-clustered sandwich" in out
    # "separated" counts the pairs whose leaderboard intervals (same options) do not overlap
    table = rank(games, RankingOptions(judge=[JUDGES[0]], ci=0.9)).overall
    measured = {m["model"] for m in result[JUDGES[0]]["models"]}
    rows = [r for r in table.rows if r.model in measured]
    apart = sum(a.lower > b.upper or b.lower > a.upper for a, b in itertools.combinations(rows, 2))
    assert result[JUDGES[0]]["pairs_separated_ci_overlap"] == apart


@pytest.mark.shared_data
def test_errors_name_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"model": "a", "score": 1, "results": [1, 2]}\n{"model": "b", "results": [1]}\n'
    )
    ref = _reference_csv(tmp_path / "ref.csv")
    assert main(["metrics", "--benchmark", str(bad), "--reference", str(ref)]) == 2
    assert f"{bad}:2: field 'score' is missing" in capsys.readouterr().err
    assert (
        main(["metrics", "--benchmark", str(tmp_path / "missing.jsonl"), "--reference", str(ref)])
        == 2
    )
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    games = tmp_path / "g.jsonl"
    games.write_text("{not json\n")
    assert main(["judges", "--games", str(games)]) == 2
    assert f"{games}:1: not valid JSON" in capsys.readouterr().err
    assert main(["power"]) == 2
    assert "give log files/directories or --games FILE" in capsys.readouterr().err
    nb = shared("human_reference", "arena_hard_paper_notebook_20240414")
    assert (
        main(
            [
                "metrics",
                "--benchmark",
                str(nb / "bootstrap_stats_arena_hard.jsonl"),
                "--reference",
                str(ref),
            ]
        )
        == 2
    )
    assert "match between" in capsys.readouterr().err


def test_confidence_argument():
    from inspect_arenahard.cli.options import confidence

    assert confidence("95") == confidence("0.95") == 0.95
    with pytest.raises(Exception, match="must be a confidence level"):
        confidence("0")
    assert q.z_value(confidence("90")) == pytest.approx(1.6448536269514722)
    assert DEFAULT_CI == 0.95


def printed_rows(text: str, title: str) -> list[list[str]]:
    """The cells of the table printed under ``title`` (cells hold no spaces here)."""
    lines = text.splitlines()
    start = lines.index(title) + 3  # title, headings, dashes
    end = next((k for k in range(start, len(lines)) if not lines[k].strip()), len(lines))
    return [line.split() for line in lines[start:end]]


def test_tables_print_what_the_json_holds(tmp_path, games_file, capsys):
    """Table and JSON are two views of one result object: every printed cell is the JSON's
    value for its field, formatted."""
    from inspect_arenahard.cli.judges import POSITION_COLUMNS
    from inspect_arenahard.cli.metrics import MODEL_COLUMNS
    from inspect_arenahard.cli.power import SPREAD_COLUMNS
    from inspect_arenahard.cli.tables import cell

    path, _ = games_file
    ref = _reference_csv(tmp_path / "ref.csv")
    out = tmp_path / "m.json"
    args = ["--games", str(path), "--reference", str(ref), "--rounds", "10", "--json", str(out)]
    assert main(["metrics", *args]) == 0
    result = json.loads(out.read_text())
    rows = printed_rows(capsys.readouterr().out, "Models (95% intervals)")
    assert rows == [[cell(m[f]) for _, f in MODEL_COLUMNS] for m in result["models"]]
    assert len(rows) == 4 and rows[0][0] == "claude-y"  # best first, the baseline included

    assert main(["judges", "--games", str(path), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    rows = printed_rows(capsys.readouterr().out, "Position bias and consistency")
    assert rows == [[cell(p[f]) for _, f in POSITION_COLUMNS] for p in result["position"]]

    assert main(["power", "--games", str(path), "--delta", "3", "--json", str(out)]) == 0
    result = json.loads(out.read_text())["judges"]
    text = capsys.readouterr().out
    for judge in JUDGES:
        rows = printed_rows(text, f"Score spread, judge {judge} ({result[judge]['interval']})")
        assert rows == [[cell(s[f]) for _, f in SPREAD_COLUMNS] for s in result[judge]["models"]]
