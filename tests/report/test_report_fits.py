"""The HTML report fits a 1280-pixel window and says what it counts, on real imported judgments:
the four v0.1 judges' published files (models judged on different prompt sets) and a v2.0 import
(real questions and o3-mini answers, two category baselines, unparsed games under the pair rule).
"""

from __future__ import annotations

import json
import re
import statistics
from html import unescape
from pathlib import Path

import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.logs.reader import read_games
from inspect_arenahard.report.dataframes import leaderboard_df
from inspect_arenahard.report.leaderboard_tables import exclusions_note
from inspect_arenahard.stats import judge_bias
from inspect_arenahard.stats.ranking import rank
from tests.helpers.browser import layout_at
from tests.helpers.shared_data import reads_shared_data, shared
from tests.helpers.v2_judgments import JUDGE, import_judgments, read_jsonl, write_v2_folder

V01 = shared("arena-hard-v0.1")
JUDGES = ["gpt-4o", "gpt-3.5-turbo-0125", "gpt-4-1106-preview", "gemini-1.5-pro-api-0514"]


@pytest.fixture(scope="module")
def v01_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("v01")
    for judge in JUDGES:
        assert (
            main(["import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(logs)]) == 0
        )
    return logs


@pytest.fixture(scope="module")
@reads_shared_data
def v2_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_v2_folder(tmp_path_factory.mktemp("v2") / "arena-hard-v2.0")


@pytest.fixture(scope="module")
def v2_logs(v2_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("v2")
    assert import_judgments(v2_folder, logs) == 0
    return logs


def report(logs: Path, out: Path) -> str:
    assert main(["report", str(logs), "--html", str(out), "--no-audit"]) == 0
    return (out / "index.html").read_text(encoding="utf-8")


def panels(html: str) -> dict[str, str]:
    """Each leaderboard tab's panel, by its name."""
    found = re.findall(
        r'<section class="panel" data-group="board" data-tab="([^"]+)"[^>]*>(.*?)</section>',
        html,
        re.S,
    )
    return dict(found)


def test_excluded_games_split_the_same_way_in_cli_json_page_and_dataframes(
    v2_logs: Path, v2_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = [
        game
        for path in (v2_folder / "model_judgment" / JUDGE).glob("*.jsonl")
        for record in read_jsonl(path)
        for game in record["games"]
    ]
    unparsed_in_files = sum(g is None or g["score"] is None for g in raw)
    tables = {t.category: t for t in rank(read_games([v2_logs]).games).tables}
    combined = tables["combined"]
    assert combined.exclusions.unparsed == unparsed_in_files > 0  # counted once, from the files
    assert combined.exclusions.partners > 0 and combined.unparsed_rule == "pair"
    assert (
        combined.exclusions
        == tables["hard_prompt"].exclusions + tables["creative_writing"].exclusions
    )

    assert (
        main(["leaderboard", str(v2_logs), "--json", str(tmp_path / "b.json"), "--no-audit"]) == 0
    )
    cli = capsys.readouterr().out
    records = json.loads((tmp_path / "b.json").read_text())
    frame = leaderboard_df(v2_logs)
    html = panels(report(v2_logs, tmp_path / "site"))
    for category, table in tables.items():
        note = exclusions_note(table)
        assert note in cli and note.startswith(
            f"{table.excluded_games} games excluded: {table.exclusions.unparsed} unparsed, "
        )
        assert unescape(note) in unescape(html[category])
        for row in table.rows:
            split = row.exclusions.record()
            [record] = [r for r in records if (r["category"], r["model"]) == (category, row.model)]
            assert {k: record[k] for k in split} == split
            [line] = frame[(frame.category == category) & (frame.model == row.model)].to_dict(
                "records"
            )
            assert {k: line[k] for k in split} == split
            if row.excluded:
                assert (
                    f'data-v="{row.excluded}" title="{row.exclusions.describe()}"' in html[category]
                )


def test_a_v2_report_opens_on_the_combined_score_and_names_its_anchors_and_features(
    v2_logs: Path, tmp_path: Path
) -> None:
    html = report(v2_logs, tmp_path / "site")
    tabs = re.findall(r'<button class="tab( active)?" data-group="board" data-tab="([^"]+)"', html)
    assert tabs[0] == (" active", "combined") and {t for _, t in tabs} == {
        "combined",
        "hard_prompt",
        "creative_writing",
    }
    combined = panels(html)["combined"]
    assert "style-controlled (length, header, list, bold held equal)" in combined
    assert "()" not in combined
    meta = re.search(r'<p class="meta">(.*?)</p>', combined).group(1)  # type: ignore[union-attr]
    bold = re.findall(r"<b>(.*?)</b>", meta)
    assert sorted(bold) == [
        "gemini-2.0-flash-001",
        "o3-mini-2025-01-31",
    ]  # names bold, not the sentence


def test_judges_power_and_disputed_games_say_what_they_count(
    v01_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = read_games([v01_logs]).games
    html = report(v01_logs, tmp_path / "site")

    # Spearman over 2-3 models: n shown, no coefficient
    judges_table = html.split('id="judges"', 1)[1].split("</table>", 1)[0]
    correlations = re.findall(r"<td[^>]*>([^<]*\(n = \d+\))</td>", judges_table)
    assert len(correlations) == len(JUDGES) and all(c.startswith("– (n = ") for c in correlations)

    # the power table's prompt count is the CLI's, with each model's count beside it
    assert main(["power", str(v01_logs), "--judge", "gpt-4o"]) == 0
    cli = capsys.readouterr().out
    n = int(re.search(r"min delta at n=(\d+)", cli).group(1))  # type: ignore[union-attr]
    judged = [g for g in games if g["judge"] == "gpt-4o" and g["parsed"]]
    prompts = {
        m: len({g["question_id"] for g in judged if g["model"] == m})
        for m in ("gpt-4o", "gpt-4o-mini")
    }
    assert n == int(statistics.median(prompts.values())) not in prompts.values()
    counts = f"gpt-4o {prompts['gpt-4o']}, gpt-4o-mini {prompts['gpt-4o-mini']}"
    assert (
        f"{n} ({counts})" in html
        and f"n = {n}: the median of the measured models' prompt counts ({counts})" in cli
    )

    # disputed games are the pairs the position-consistency share leaves out
    inconsistent = sum(
        round(p.n_prompts * (1 - p.consistency)) for p in judge_bias.position_analysis(games)
    )
    assert f"Disputed games ({inconsistent})" in html

    # models judged on different prompt sets: n per model and the overlap
    sets = {
        m: {g["question_id"] for g in games if g["model"] == m} for m in {g["model"] for g in games}
    }
    shared_by_all = set.intersection(*sets.values())
    note = re.search(r'<p class="note warn">(.*?)</p>', html).group(1)  # type: ignore[union-attr]
    assert all(f"{m} {len(s)}" in note for m, s in sets.items())
    assert f"{len(shared_by_all)} prompts shared by all {len(sets)} models" in note


def test_every_table_fits_a_1280_pixel_window(
    v01_logs: Path, v2_logs: Path, tmp_path: Path
) -> None:
    for name, logs in (("v01", v01_logs), ("v2", v2_logs)):
        report(logs, tmp_path / name)
        layout = layout_at(tmp_path / name / "index.html", tmp_path / f"profile-{name}")
        assert layout["scrollWidth"] <= layout["clientWidth"] == 1280, name
        assert layout["clipped"] == [], name


def test_the_layout_probe_sees_a_table_wider_than_its_box(tmp_path: Path) -> None:
    page = tmp_path / "wide.html"
    cells = "".join(f"<td>column-{i}-with-a-long-unbreakable-value</td>" for i in range(40))
    page.write_text(
        f"<html><body><div style='overflow-x:auto'><table><tr>{cells}</tr></table></div><pre>{'x' * 400}</pre></body></html>"
    )
    layout = layout_at(page, tmp_path / "profile")
    assert len(layout["clipped"]) == 2
