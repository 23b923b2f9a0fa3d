"""Every JSON file the commands write says which versions of this package and of Inspect wrote
it, in the layout its readers already expect."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import inspect_arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.curate.cache import write_report
from inspect_arenahard.files.outputs import versions, write_json
from tests.helpers.shared_data import shared

REPO = Path(inspect_arenahard.__file__).parents[2]
EXPECTED = {"inspect_arenahard": inspect_arenahard.__version__, "inspect_ai": version("inspect_ai")}


def test_the_package_version_is_the_one_the_wheel_declares() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == inspect_arenahard.__version__
    assert versions() == EXPECTED


def test_a_mapping_gets_the_versions_beside_its_keys(tmp_path: Path) -> None:
    write_json(tmp_path / "m.json", {"metrics": {"spearman": 0.9}})
    assert json.loads((tmp_path / "m.json").read_text()) == {
        "metrics": {"spearman": 0.9},
        "generated_by": EXPECTED,
    }


def test_every_record_of_a_list_gets_the_versions(tmp_path: Path) -> None:
    write_json(tmp_path / "r.json", [{"model": "a"}, {"model": "b"}])
    records = json.loads((tmp_path / "r.json").read_text())
    assert records == [{"model": m, "generated_by": EXPECTED} for m in "ab"]


def test_a_payload_that_cannot_carry_them_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="list"):
        write_json(tmp_path / "x.json", [1, 2])
    assert not (tmp_path / "x.json").exists()


def test_curation_step_reports_are_stamped(tmp_path: Path) -> None:
    returned = write_report(tmp_path / "report.json", {"key": "k", "counts": {"in": 3}})
    assert "generated_by" not in returned  # the step's own view of its report is unchanged
    assert json.loads((tmp_path / "report.json").read_text())["generated_by"] == EXPECTED


@pytest.mark.shared_data
def test_the_leaderboard_json_is_stamped(tmp_path: Path) -> None:
    battles = shared("battles") / "lmarena_74e8b6f_arena_hard_battles.jsonl"
    out = tmp_path / "lb.json"
    assert (
        main(["leaderboard", "--battles", str(battles), "--rounds", "5", "--json", str(out)]) == 0
    )
    records = json.loads(out.read_text())
    assert records and all(r["generated_by"] == EXPECTED for r in records)


def test_version_flag_prints_both_versions(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"arenahard {EXPECTED['inspect_arenahard']} (Inspect {EXPECTED['inspect_ai']})"
    )
