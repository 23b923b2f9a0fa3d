"""``arenahard leaderboard LOGS --cost`` reads each log once: games, audit flags and cost."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.logs import reader
from inspect_arenahard.report import costs
from inspect_arenahard.report.audit_checks import audit_model
from inspect_arenahard.report.audit_inputs import _sample

OLD_LOG = Path(__file__).parents[1] / "logs" / "fixtures" / "pairwise_before_typed_record.eval"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(OLD_LOG, folder / OLD_LOG.name)
    return folder


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Reads of each log from now on: its summaries, its full samples, its model events."""
    reads: Counter[str] = Counter()
    for module, name in (
        (reader, "raw_summaries"),
        (reader, "sample_records"),
        (costs, "model_events"),
    ):
        real = getattr(module, name)

        def counted(path, *args, _real=real, **kwargs):  # type: ignore[no-untyped-def]
            reads[str(path)] += 1
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return reads


def test_each_log_is_read_once_for_games_flags_and_cost(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(logs / OLD_LOG.name)
    # references, each from its own read of the log: every model event, every sample's answer
    reference = costs.run_cost(path, "mockllm/candidate").by_role()["judge"]
    answers = [_sample(raw)[1] for raw in reader.sample_records(path, [])]
    reference_flags = audit_model("mockllm/candidate", answers).flags

    reads = counted_reads(monkeypatch)
    out = tmp_path / "lb.json"
    assert main(["leaderboard", str(logs), "--cost", "--rounds", "5", "--json", str(out)]) == 0
    assert list(reads.values()) == [1]

    [record] = [r for r in json.loads(out.read_text()) if r["model"] == "mockllm/candidate"]
    assert reference.calls == 6  # three prompts, two games each
    assert (record["judge_calls"], record["judge_input_tokens"]) == (
        reference.calls,
        reference.input_tokens,
    )
    assert record["flags"] == reference_flags


def test_the_html_report_reads_each_log_once_too(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's games, audit flags and costs come from one read of each log, as the
    leaderboard's do, and agree with the leaderboard's."""
    assert main(["leaderboard", str(logs), "--cost", "--rounds", "5", "--json", str(tmp_path / "lb.json")]) == 0  # fmt: skip
    [board] = [
        r
        for r in json.loads((tmp_path / "lb.json").read_text())
        if r["model"] == "mockllm/candidate"
    ]
    reads = counted_reads(monkeypatch)
    site = tmp_path / "site"
    assert main(["report", str(logs), "--html", str(site), "--rounds", "5"]) == 0
    assert list(reads.values()) == [1]
    page = (site / "index.html").read_text()
    cost = page[page.index('<h2 id="cost">') : page.index('<h2 id="judges">')]
    judge_row = cost[cost.index("<td class=text>judge</td>") :].split("</tr>")[0]
    assert f'<td data-v="{board["judge_calls"]}">{board["judge_calls"]}</td>' in judge_row
    assert board["judge_calls"] == 6
