"""Prompt shards in an object store (a real S3-compatible server on 127.0.0.1): a folder, a glob
or one object reads the local folder's rows, with either engine; a bad record is named by its
object and line; a rewritten object is read again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.curation import ingest_cli
from tests.helpers.s3 import moto_s3

BUCKET = "prompts"
POOL = f"s3://{BUCKET}/pool/"


def rows(work: Path) -> pd.DataFrame:
    return pd.read_parquet(work / "ingested.parquet")


@pytest.fixture(scope="module")
def bucket(shards: Path) -> Iterator[dict[str, str]]:
    """The four real shards under s3://prompts/pool/; yields the server's environment variables."""
    with moto_s3(BUCKET) as env:
        import boto3

        client = boto3.client("s3")
        for file in sorted(shards.iterdir()):
            client.upload_file(str(file), BUCKET, f"pool/{file.name}")
        yield env


def test_store_folder_glob_and_object_read_like_local_files(
    bucket: dict[str, str], shards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ingest_cli(tmp_path / "local", shards) == 0
    local = rows(tmp_path / "local")
    assert ingest_cli(tmp_path / "s3", POOL) == 0
    pd.testing.assert_frame_equal(rows(tmp_path / "s3"), local)  # same ids: source named "pool"

    parquet = pd.concat([pd.read_parquet(f) for f in sorted(shards.glob("*.parquet"))])
    assert ingest_cli(tmp_path / "glob", f"{POOL}*.parquet") == 0
    from_glob = rows(tmp_path / "glob")
    assert len(from_glob) == len(parquet) and set(from_glob["source"]) == {"pool"}
    assert from_glob["source_id"].tolist() == parquet["conversation_id"].tolist()

    assert ingest_cli(tmp_path / "one", f"gz={POOL}part-2.jsonl.gz") == 0
    one = rows(tmp_path / "one")
    assert (
        one["turns"].tolist()
        == local[local["id"].isin("pool:" + one["source_id"])]["turns"].tolist()
    )

    capsys.readouterr()
    assert ingest_cli(tmp_path / "s3", POOL) == 0
    assert '"cached": true' in capsys.readouterr().out
    import boto3

    boto3.client("s3").put_object(
        Bucket=BUCKET, Key="pool/part-9.jsonl", Body=b'{"conversation_id": "new", '
        b'"conversation": [{"role": "user", "content": "a new prompt"}]}\n'
    )  # fmt: skip
    try:
        assert ingest_cli(tmp_path / "s3", POOL) == 0
        assert '"cached": true' not in capsys.readouterr().out
        assert rows(tmp_path / "s3")["id"].iloc[-1] == "pool:new"
    finally:
        boto3.client("s3").delete_object(Bucket=BUCKET, Key="pool/part-9.jsonl")


def test_store_shards_are_read_by_ray_workers(
    bucket: dict[str, str], shards: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ray workers open the objects themselves (range reads; the JSONL shard in pieces)."""
    ray = pytest.importorskip("ray")
    from inspect_arenahard.curate import sources

    monkeypatch.setattr(sources, "PART_ROWS", 50)
    monkeypatch.setattr(sources, "PART_BYTES", 20_000)
    assert ingest_cli(tmp_path / "local", shards) == 0
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": bucket},  # the workers' credentials and endpoint
    )
    try:
        assert ingest_cli(tmp_path / "ray", POOL, engine="ray") == 0
    finally:
        ray.shutdown()
    pd.testing.assert_frame_equal(rows(tmp_path / "ray"), rows(tmp_path / "local"))


def test_store_errors_name_the_object_and_line(
    bucket: dict[str, str], shards: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import boto3

    lines = (shards / "part-1.jsonl").read_text(encoding="utf-8").split("\n")
    lines[600] = "{oops"
    client = boto3.client("s3")
    client.put_object(Bucket=BUCKET, Key="bad/part-1.jsonl", Body="\n".join(lines).encode())
    cases = {
        f"s3://{BUCKET}/bad/": f"s3://{BUCKET}/bad/part-1.jsonl:601: not valid JSON",
        f"s3://{BUCKET}/nothing/": f"source not found: s3://{BUCKET}/nothing/",
        f"{POOL}*.csv": f"no files match {POOL}*.csv",
    }
    for source, message in cases.items():
        capsys.readouterr()
        assert ingest_cli(tmp_path / "w", source) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err
