"""Where ``arenahard import arena-hard-auto`` reads from: the shipped sample, a local folder, or
the official release on the Hugging Face hub (here replaced by a local copy: no network in CI)."""

from __future__ import annotations

import fnmatch
import gzip
import shutil
from pathlib import Path
from typing import Any

import pytest

from inspect_arenahard.cli import main
from inspect_arenahard.files.sample_data import sample_folder
from inspect_arenahard.judging.templates import config
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")


def fake_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The hub repo as a local copy of the v0.1 release: ``snapshot_download`` copies the files its
    patterns match into a cache folder (as the client does) and records each call."""
    repo = tmp_path / "repo"
    shutil.copytree(V01, repo / "data" / "arena-hard-v0.1")
    calls: list[dict[str, Any]] = []

    def snapshot_download(**kwargs: Any) -> str:
        calls.append(kwargs)
        cache = tmp_path / "cache"
        for path in repo.rglob("*"):
            name = path.relative_to(repo).as_posix()
            if path.is_file() and any(fnmatch.fnmatch(name, p) for p in kwargs["allow_patterns"]):
                (cache / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, cache / name)
        return str(cache)

    def list_repo_files(repo_id: str, **kwargs: Any) -> list[str]:
        return [p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()]

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    monkeypatch.setattr(huggingface_hub, "list_repo_files", list_repo_files)
    return calls


def test_without_a_folder_the_import_reads_the_pinned_hub_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = fake_hub(tmp_path, monkeypatch)
    out = tmp_path / "logs"
    assert main(["import", "arena-hard-auto", "--judge", "gpt-4o", "--out", str(out)]) == 0
    assert capsys.readouterr().out.count("wrote ") == 2  # gpt-4o and gpt-4o-mini
    hub = config("hub")
    assert {c["revision"] for c in calls} == {hub["revision"]}  # the task's pinned revision
    assert {c["repo_id"] for c in calls} == {hub["repo_id"]}
    patterns = [p for c in calls for p in c["allow_patterns"]]
    assert "data/arena-hard-v0.1/model_judgment/gpt-4o/*.jsonl" in patterns
    assert "data/arena-hard-v0.1/model_answer/gpt-4-0314.jsonl" in patterns  # the baseline
    assert not any("gpt-4-1106-preview" in p for p in patterns)  # only the judge asked for
    # the same logs as importing the local folder
    local = tmp_path / "local"
    assert (
        main(["import", "arena-hard-auto", str(V01), "--judge", "gpt-4o", "--out", str(local)]) == 0
    )
    assert len(list(out.iterdir())) == len(list(local.iterdir())) == 2


def test_a_judge_missing_from_the_hub_lists_those_that_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_hub(tmp_path, monkeypatch)
    assert main(["import", "arena-hard-auto", "--judge", "gpt4o", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "no judge 'gpt4o'" in err
    assert "gemini-1.5-pro-api-0514, gpt-3.5-turbo-0125, gpt-4-1106-preview, gpt-4o" in err


def test_offline_one_line_names_the_sample_and_the_folder_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import huggingface_hub
    from huggingface_hub.errors import LocalEntryNotFoundError

    def offline(**kwargs: Any) -> str:
        raise LocalEntryNotFoundError("outgoing traffic has been disabled")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    assert main(["import", "arena-hard-auto", "--judge", "gpt-4o", "--out", str(tmp_path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("arenahard import: error: offline:")
    assert "--sample --judge gpt-4o" in line and "arena-hard-auto DATA_DIR --judge gpt-4o" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("folder", ["sample", "local"])
def test_unknown_judge_in_a_folder_lists_the_judges(
    folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--sample"] if folder == "sample" else [str(V01)]
    args = ["import", "arena-hard-auto", *where, "--judge", "gpt4o", "--out", str(tmp_path / "o")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "judge 'gpt4o'" in err and "gpt-4-1106-preview, gpt-4o)" in err


def test_the_sample_is_the_published_data_compressed() -> None:
    """Each shipped file decompresses to the published file, byte for byte."""
    sample = sample_folder()
    for packed in sample.rglob("*.jsonl.gz"):
        original = V01 / packed.relative_to(sample).as_posix().removesuffix(".gz")
        assert gzip.decompress(packed.read_bytes()) == original.read_bytes(), packed
    v2 = sample.parent / "arena-hard-v2.0" / "question.jsonl.gz"
    assert (
        gzip.decompress(v2.read_bytes()) == shared("arena-hard-v2.0", "question.jsonl").read_bytes()
    )
    total = sum(p.stat().st_size for p in sample.parent.rglob("*") if p.is_file())
    assert total < 10 * 1024 * 1024
