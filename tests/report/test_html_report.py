"""The HTML report in a real headless browser, on real imported arena-hard-auto judgments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.report.page.render import PLAIN, STYLED
from tests.helpers.browser import headless
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")
JUDGES = ["gpt-4o", "gpt-3.5-turbo-0125", "gpt-4-1106-preview", "gemini-1.5-pro-api-0514"]


def colour_pixels(image: np.ndarray, hex_colour: str, tolerance: int = 24) -> int:
    rgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int(np.sum(np.all(np.abs(image[..., :3] * 255 - rgb) <= tolerance, axis=-1)))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("imported")
    for judge in JUDGES:
        assert (
            main(["import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(logs)]) == 0
        )
    return logs


def test_report_loads_cleanly_and_renders_every_model(imported: Path, tmp_path: Path) -> None:
    from matplotlib.image import imread

    assert main(["report", str(imported), "--html", str(tmp_path / "site"), "--rounds", "20"]) == 0
    page = tmp_path / "site" / "index.html"
    assert not re.search(
        r"""(src|href)=["']https?://""", page.read_text(encoding="utf-8")
    )  # nothing to fetch at view time

    dom = headless(page, tmp_path / "p1", "--dump-dom", "--virtual-time-budget=3000")
    assert 'data-ready="1"' in dom.stdout  # the page's script ran to its end
    assert re.search(r'<div id="errors" hidden=""></div>', dom.stdout), (
        "the page reported script errors"
    )
    assert "Uncaught" not in dom.stderr and ":CONSOLE" not in dom.stderr
    models = {g["model"] for g in read_games([imported]).games} | {"gpt-4-0314"}
    assert len(models) == 6
    for model in models:
        assert model in dom.stdout, model
    for judge in {g["judge"] for g in read_games([imported]).games}:
        assert judge in dom.stdout
    assert dom.stdout.count('<svg xmlns="http://www.w3.org/2000/svg" class="forest"') == 1

    shot = tmp_path / "shot.png"
    headless(page, tmp_path / "p2", f"--screenshot={shot}", "--window-size=1280,900")
    image = imread(shot)
    assert image.shape[:2] == (900, 1280)
    assert np.mean(np.any(image[..., :3] < 0.9, axis=-1)) > 0.03  # not blank: text, tables, plot
    assert (
        colour_pixels(image, PLAIN) > 100 and colour_pixels(image, STYLED) > 100
    )  # the forest plot drew both series


def test_categories_become_tabs_with_cost(tmp_path: Path) -> None:
    """A live v2.0-style run (two categories, one baseline): a pooled tab and one per category, with cost."""

    def judge(messages) -> str:  # type: ignore[no-untyped-def]
        _, answer_a, _ = judged(messages)
        return "[[A>B]]" if answer_a.startswith("MINE") else "[[B>A]]"

    [log] = eval(
        arenahard(
            version="v2.0", data_dir=str(shared("arena-hard-v2.0")), baseline="o3-mini-2025-01-31"
        ),
        model=scripted_model("tabmodel", lambda m: "MINE " + m[-1].text[:30]),
        model_roles={"judge": scripted_model("tabjudge", judge)},
        sample_id=["2edbb5f36f5b42be", "d657b1fb82b141da", "0a055d8b33ca49b1"],
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "mockllm/tabmodel: {input: 1000, output: 1000}\nmockllm/tabjudge: {input: 1000, output: 1000}\n"
    )
    assert (
        main(
            [
                "report",
                str(tmp_path / "logs"),
                "--html",
                str(tmp_path / "site"),
                "--rounds",
                "5",
                "--prices",
                str(prices),
            ]
        )
        == 0
    )
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<button class="tab[^"]*" data-group="board" data-tab="([^"]+)"', html) == [
        "all",
        "creative_writing",
        "hard_prompt",
    ]
    # 3 answers + 6 judge games, 15 tokens each at $1000/M: $0.135, in the model's row and the cost section
    assert html.count("$0.14") >= 2 and "mockllm/tabjudge" in html
    assert f'<code title="{log.location}">' in html  # the log file, for inspect view


def test_flags_column_shows_the_audit_of_the_real_answers(imported: Path, tmp_path: Path) -> None:
    """The audit runs on the imported real answers: Athene-V2-Chat (2.2x the baseline's length,
    winning on longer answers) carries ``verbose``, as in ``arenahard leaderboard``'s flags column."""
    from inspect_arenahard.report.audit_inputs import model_flags

    flags = model_flags([str(imported)])
    assert main(["report", str(imported), "--html", str(tmp_path / "site"), "--rounds", "5"]) == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<th>flags</th>" in html
    flagged = {m: f for m, f in flags.items() if f}
    assert flagged and all(
        f'<td class="text">{", ".join(f)}</td>' in html for f in flagged.values()
    )
    assert (
        main(
            [
                "report",
                str(imported),
                "--html",
                str(tmp_path / "plain"),
                "--rounds",
                "5",
                "--no-audit",
            ]
        )
        == 0
    )
    assert "<th>flags</th>" not in (tmp_path / "plain" / "index.html").read_text(encoding="utf-8")


def test_quality_section_matches_the_metrics_command(imported: Path, tmp_path: Path) -> None:
    reference = shared(
        "human_reference", "chatbot_arena_leaderboards_csv", "chatbot_arena_20240904_full.csv"
    )
    names = tmp_path / "names.json"
    names.write_text('{"gpt-4o": "gpt-4o-2024-05-13", "gpt-4o-mini": "gpt-4o-mini-2024-07-18", '
                     '"Meta-Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct"}', encoding="utf-8")  # fmt: skip
    common = ["--reference", str(reference), "--map", str(names), "--rounds", "20"]
    assert main(["metrics", str(imported), *common, "--json", str(tmp_path / "m.json")]) == 0
    expected = json.loads((tmp_path / "m.json").read_text())["metrics"]
    assert main(["report", str(imported), "--html", str(tmp_path / "site"), *common]) == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert f"{expected['n_models']} models matched" in html
    for name in ("spearman", "kendall_tau", "separability", "brier"):
        assert re.search(
            rf"<td>{name.replace('_', ' ')}</td><td data-v=\"{expected[name]!r}\">", html
        ), name


def test_one_baseline_per_category_gives_category_tabs_only(
    imported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in v2.0 (hard prompts vs o3-mini, creative writing vs gemini): no pooled table, and the
    judge sections still work. The real games are relabelled into two categories with two baselines."""
    import inspect_arenahard.logs.ranked_games as logs  # what every ranking command reads through

    real = logs.read_games

    def relabelled(paths, *args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(paths, *args, **kwargs)
        for g in result.games:
            creative = g["model"] in ("gpt-4o-mini", "phi-3-medium-4k-instruct")
            g["category"], g["baseline"] = (
                ("creative_writing", "gemini-2.0-flash")
                if creative
                else ("hard_prompt", g["baseline"])
            )
        return result

    monkeypatch.setattr(logs, "read_games", relabelled)
    assert main(["report", str(imported), "--html", str(tmp_path / "site"), "--rounds", "5"]) == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'data-group="board" data-tab="([^"]+)">', html)[:2] == [
        "creative_writing",
        "hard_prompt",
    ]
    assert (
        "anchor: <b>gemini-2.0-flash</b> = 50" in html and "anchor: <b>gpt-4-0314</b> = 50" in html
    )


def test_the_page_names_the_versions_that_made_it(imported: Path, tmp_path: Path) -> None:
    from importlib.metadata import version

    import inspect_arenahard

    assert main(["report", str(imported), "--html", str(tmp_path), "--rounds", "5"]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    made_by = f"inspect_arenahard {inspect_arenahard.__version__} (Inspect {version('inspect_ai')})"
    assert f'<meta name="generator" content="{made_by}">' in html
    assert f"UTC by {made_by}</p>" in html  # shown to the reader too
