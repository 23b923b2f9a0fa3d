"""``arenahard leaderboard`` checks its judges end to end: arenahard runs judged by scripted
judges whose verdicts carry no information (position only, one constant label, the longer answer
only) are flagged on the row, in JSON and CSV, and ``--strict-judges`` refuses them in one line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from inspect_ai import eval

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from tests.helpers.judge_runs import v01
from tests.helpers.scripted import judged, scripted_model

PROMPTS = 8


def position_only(messages) -> str:  # type: ignore[no-untyped-def]
    return "My final verdict is: [[A>>B]]"


def always_tie(messages) -> str:  # type: ignore[no-untyped-def]
    return "My final verdict is: [[A=B]]"


def longer_answer(messages) -> str:  # type: ignore[no-untyped-def]
    _, answer_a, answer_b = judged(messages)
    return "[[A>B]]" if len(answer_a) > len(answer_b) else "[[B>A]]"


JUDGES = {"position-only": position_only, "tie-only": always_tie, "longer-only": longer_answer}


@pytest.fixture(scope="module")
def judged_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One log folder per scripted judge: a short candidate answer against the v0.1 baseline."""
    folders = {}
    for name, reply in JUDGES.items():
        folder = tmp_path_factory.mktemp(name)
        eval(
            arenahard(data_dir=v01(), cache=False),
            model=scripted_model("candidate", lambda m: "Answer: " + m[-1].text[:60]),
            model_roles={"judge": scripted_model(name, reply)},
            limit=PROMPTS,
            log_dir=str(folder),
            display="none",
        )
        folders[name] = folder
    return folders


def leaderboard(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["leaderboard", "--no-audit", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("judge", "flags"),
    [
        ("position-only", ["position-only", "constant", "swap-inconsistent"]),
        ("tie-only", ["constant"]),
        ("longer-only", ["length-only"]),
    ],
)
def test_a_judge_without_information_is_flagged_and_strict_refuses_it(
    judge: str,
    flags: list[str],
    judged_logs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, out_json, out_csv = judged_logs[judge], tmp_path / "lb.json", tmp_path / "lb.csv"
    code, out, err = leaderboard(
        [str(folder), "--json", str(out_json), "--csv", str(out_csv)], capsys
    )
    assert code == 0, err
    name = f"mockllm/{judge}"
    records = {r["model"]: r for r in json.loads(out_json.read_text())}
    candidate = records["mockllm/candidate"]
    assert candidate["judges"] == {name: 2 * PROMPTS}
    assert candidate["judge_flags"] == [f"{flag} ({name})" for flag in flags]
    assert candidate["interval_meaningful"] is False  # it rests on that judge alone
    assert next(csv.DictReader(out_csv.open()))["judge_flags"] == ";".join(candidate["judge_flags"])
    line = next(x for x in out.splitlines() if "mockllm/candidate" in x)
    assert f"{flags[0]} ({name})" in line and "CI not meaningful" in line
    assert f"judge {name} flagged: {flags[0]}:" in out
    code, out, err = leaderboard([str(folder), "--strict-judges"], capsys)
    assert code == 2 and out == ""
    [message] = err.strip().splitlines()[-1:]
    assert message.startswith("arenahard leaderboard: error: judge verdicts carry")
    assert f"{name} ({flags[0]}:" in message and "--strict-judges" in message


@pytest.mark.shared_data
def test_the_page_and_the_dataframe_show_the_same_flags(
    judged_logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_arenahard.report.dataframes import leaderboard_df

    folder = judged_logs["tie-only"]
    frame = leaderboard_df(str(folder)).set_index("model")
    row = frame.loc["mockllm/candidate"]
    assert row["judge_flags"] == ["constant (mockllm/tie-only)"]
    assert row["judges"] == {"mockllm/tie-only": 2 * PROMPTS} and not row["interval_meaningful"]
    assert frame.attrs["judge_notes"] == [
        "judge mockllm/tie-only flagged: constant: A=B in 100% [68%, 100%] of 16 games"
    ]
    assert main(["report", str(folder), "--html", str(tmp_path / "site"), "--no-audit"]) == 0
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<th>judge flags</th>" in html
    assert '<td class="text">constant (mockllm/tie-only); CI not meaningful</td>' in html
    assert "constant: A=B in 100% [68%, 100%] of 16 games" in html  # the judge checks table
