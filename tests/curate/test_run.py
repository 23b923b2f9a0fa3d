"""`arenahard curate run config.yaml`: every step from one file, resumed without redoing work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from inspect_arenahard.cli import main
from inspect_arenahard.curate.config import run
from tests.helpers.inspect_cli import inspect_eval_cli
from tests.helpers.shared_data import shared

POOL = shared("prompt_pools", "openassistant", "prompt_lottery_en_250_text.jsonl")


def _config(tmp_path: Path, **override: object) -> Path:
    config = {
        "work": "work",
        "ingest": {"sources": [str(POOL)]},
        "filters": {"min_chars": 20},
        "cluster": {"min_cluster_size": 5},
        "annotate": {"model": "mockllm/model", "log_dir": "logs"},
        "select": {"min_score": 0, "min_cluster_mean": 0, "clusters": 3, "per_cluster": 1},
        "report": {"plot": "clusters.png"},
    } | override
    path = tmp_path / "curate.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def test_run_all_steps_then_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    reports = run(config)
    assert list(reports) == ["ingest", "cluster", "select", "report"]
    assert reports["ingest"]["records"] == 263
    # mockllm's default reply has no label: everything is counted as unparsed, nothing guessed.
    assert (
        reports["select"]["annotated"]
        == reports["cluster"]["kept"]
        == reports["select"]["unparsed"]
    )
    assert reports["select"]["selected"] == 0 and reports["report"]["distribution"] == {
        "prompts": 0
    }
    assert (tmp_path / "clusters.png").is_file()
    logs = sorted((tmp_path / "logs").iterdir())
    assert main(["curate", "run", str(config), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count('"cached": true') == 3  # ingest, cluster, select
    assert main(["curate", "run", str(config)]) == 0  # the summary for people
    lines = capsys.readouterr().out.splitlines()
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("ingested")) :]
    assert lines[0] == "ingested 263 prompts (prompt_lottery_en_250_text 263)"
    kept = reports["cluster"]["kept"]
    removed = {f["filter"]: f["removed"] for f in reports["cluster"]["filters"] if f["removed"]}
    assert lines[1].startswith(f"kept {kept} of 263; removed: ")
    assert (
        sum(int(part.rsplit(" ", 1)[1]) for part in lines[1].split(": ")[1].split(", "))
        == sum(removed.values())
        == 263 - kept
    )
    assert "unchanged inputs, reused: ingest, cluster, select (--force redoes them)" in lines
    assert f"wrote {tmp_path / 'work' / 'clusters.jsonl'}" in "\n".join(lines)
    assert sorted((tmp_path / "logs").iterdir()) == logs  # the annotation eval was not run again


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"clusterr": {}}, "unknown section 'clusterr'"),
        ({"cluster": {"min_cluster_sise": 5}}, r"cluster: unknown key 'min_cluster_sise'"),
        ({"filters": {"min_chars": "many"}}, r"filters.min_chars: expected int"),
        ({"ingest": {"sources": []}}, "ingest.sources must be a non-empty list"),
        ({"annotate": {"log_dir": "x"}}, "annotate: missing key 'model'"),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, override: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run(_config(tmp_path, **override))


def test_cli_reports_errors_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["curate", "cluster", str(tmp_path / "nowhere")]) == 2
    assert "work folder not found" in capsys.readouterr().err


def test_task_file_runs_with_inspect(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(
        json.dumps({"id": "p1", "prompt": "Prove that there are infinitely many primes."}) + "\n",
        encoding="utf-8",
    )
    repo = Path(__file__).resolve().parents[2]  # Inspect wants a relative task file path
    args = [
        "tasks/arenahard_annotate.py",
        "-T",
        f"pool={pool}",
        "-T",
        "sample=1",
        "--model",
        "mockllm/model",
    ]
    log = inspect_eval_cli(args, cwd=repo, log_dir=tmp_path / "logs")
    assert log.status == "success" and log.results.scores[0].unscored_samples == 1  # type: ignore[union-attr]
