"""curate ingest/cluster --engine ray on real prompts in a small local Ray: the local engine's
output contract, exact agreement with it (ingest always; cluster when UMAP is fitted on
everything), NMI when fitted on a sample, resumption after an interrupted embedding, and errors
that name the shard and line."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from inspect_arenahard.cli import main
from tests.helpers.curation import ingest_cli, write_jsonl
from tests.helpers.shared_data import shared

ray = pytest.importorskip("ray")

POOLS = shared("prompt_pools")
CATALOG = POOLS / "lmarena_arena_catalog" / "explorer_data3_examples.json"
RAY = ["--engine", "ray", "--ray-batch-size", "256", "--min-cluster-size", "10"]


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def report(work: Path) -> dict:
    return json.loads((work / "cluster_report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def local_ray():  # type: ignore[no-untyped-def]
    """One small local Ray for the module (the engine joins it and leaves it running)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def works(tmp_path_factory: pytest.TempPathFactory, local_ray) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """The Ray engine from scratch, then the local engine on a copy sharing its embedding cache."""
    root = tmp_path_factory.mktemp("ray")
    assert main(["curate", "ingest", "--source", str(CATALOG), "--out", str(root / "ray")]) == 0
    assert main(["curate", "cluster", str(root / "ray"), *RAY]) == 0
    (root / "local").mkdir()
    shutil.copy(root / "ray" / "ingested.parquet", root / "local")
    shutil.copytree(root / "ray" / "cache", root / "local" / "cache")
    assert main(["curate", "cluster", str(root / "local"), "--min-cluster-size", "10"]) == 0
    return {"ray": root / "ray", "local": root / "local"}


def test_same_output_contract_as_local(works: dict[str, Path]) -> None:
    ray_report, local_report = report(works["ray"]), report(works["local"])
    assert ray_report["engine"] == "ray" and local_report["engine"] == "local"
    assert (
        ray_report["filters"] == local_report["filters"]
    )  # counts summed over blocks = the whole pool's
    assert ray_report["ingested"] == 1639 and ray_report["kept"] > 1000
    for name in ("excluded.parquet", "prompts.parquet"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(works["ray"] / name), pd.read_parquet(works["local"] / name)
        )
    # UMAP fitted on all prompts (the pool is below --umap-sample): the very same clusters and topics
    assert read_jsonl(works["ray"] / "clusters.jsonl") == read_jsonl(
        works["local"] / "clusters.jsonl"
    )
    assert (works["ray"] / "topics.json").read_text() == (
        works["local"] / "topics.json"
    ).read_text()


def test_rerun_is_cached_and_placement_does_not_matter(
    works: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["curate", "cluster", str(works["ray"]), *RAY, "--ray-actors", "2"]) == 0
    assert '"cached": true' in capsys.readouterr().out


def test_sample_fit_agrees_with_full_fit(works: dict[str, Path], tmp_path: Path) -> None:
    """UMAP fitted on a seeded 1,000 of the ~1,400 prompts, the rest transformed by Ray tasks.

    This pool's official topics are small (~10 prompts), the hard case for a sample fit: with 700
    prompts in the sample the NMI against the official topics fell from 0.62 to 0.50.
    """
    from sklearn.metrics import normalized_mutual_info_score

    work = tmp_path / "sample"
    shutil.copytree(works["ray"], work)
    assert main(["curate", "cluster", str(work), *RAY, "--umap-sample", "1000"]) == 0
    sampled, full = report(work), report(works["ray"])
    print(
        "official-topic agreement, sample fit:",
        sampled["label_agreement"],
        "full fit:",
        full["label_agreement"],
    )
    assert sampled["kept"] == full["kept"]
    a = [r["cluster"] for r in read_jsonl(work / "clusters.jsonl")]
    b = [r["cluster"] for r in read_jsonl(works["ray"] / "clusters.jsonl")]
    between = normalized_mutual_info_score(a, b)
    print("NMI between sample-fit and full-fit clusters:", round(between, 3))
    assert between >= 0.55
    assert sampled["label_agreement"]["nmi"] >= full["label_agreement"]["nmi"] - 0.1


def test_parallel_transform_equals_one_process(
    works: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The UMAP transform on Ray actors gives the coordinates of a plain in-process transform.

    Actors that shared the model's zero-copy buffers in Ray's object store at once got
    coordinates that depended on what the other actor was doing: two runs differed (at 1M
    prompts, NMI 0.89 between the clusters of two runs from the same embeddings).
    """
    from inspect_arenahard.curate import scale
    from inspect_arenahard.curate.reduce import quiet_umap, umap_reducer
    from inspect_arenahard.curate.step_options import ClusterOptions

    files = sorted((works["ray"] / "cache" / "embeddings").glob("*/*.vecs.npy"))
    real = np.concatenate([np.load(f) for f in files])
    # five noisy copies of the real vectors: UMAP keeps a search index (the shared state in
    # question) only when fitted on 4,096 points or more, and the catalog has ~1,400
    rng = np.random.default_rng(0)
    vectors = np.concatenate(
        [real + rng.normal(0, 0.02, real.shape).astype(np.float32) for _ in range(5)]
    )
    fitted, rest = np.arange(4500), np.arange(4500, len(vectors))
    with quiet_umap():
        reducer = umap_reducer(ClusterOptions()).fit(vectors[fitted])
    assert reducer._knn_search_index is not None
    chunk = 500
    monkeypatch.setattr(scale, "TRANSFORM_ROWS", chunk)
    on_ray = [scale._transform_in_parallel(reducer, vectors, rest) for _ in range(2)]
    with quiet_umap():
        here = np.concatenate(
            [reducer.transform(vectors[rest[i : i + chunk]]) for i in range(0, len(rest), chunk)]
        )
    assert len(rest) > 4 * chunk
    np.testing.assert_array_equal(on_ray[0], here)
    np.testing.assert_array_equal(on_ray[1], here)


def test_resumes_after_interrupted_embedding(
    works: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_arenahard.curate import embed, scale

    work = tmp_path / "resume"
    shutil.copytree(works["ray"], work)
    parts = sorted((work / "cache" / "embeddings").glob("*/*.keys.npy"))
    assert len(parts) >= 5  # one part per actor batch
    lost = 0
    for keys in parts[-3:]:  # the last three parts never reached the disk
        lost += len(np.load(keys))
        keys.unlink()
        keys.with_name(keys.name.replace(".keys.", ".vecs.")).unlink()

    real_add, added = embed.EmbeddingCache.add, []

    def add_then_crash(self, keys, vectors):  # type: ignore[no-untyped-def]
        real_add(self, keys, vectors)
        added.append(len(keys))
        raise KeyboardInterrupt("interrupted after one part")

    monkeypatch.setattr(embed.EmbeddingCache, "add", add_then_crash)
    with pytest.raises(KeyboardInterrupt):
        main(["curate", "cluster", str(work), *RAY, "--force"])
    assert added == [256]
    monkeypatch.undo()

    real_parts, pending = scale.RayEngine._embed_parts, []

    def recording(self, todo, options):  # type: ignore[no-untyped-def]
        pending.append(len(todo))
        yield from real_parts(self, todo, options)

    monkeypatch.setattr(scale.RayEngine, "_embed_parts", recording)
    assert main(["curate", "cluster", str(work), *RAY, "--force"]) == 0
    assert pending == [lost - 256]  # only what neither run had cached
    resumed = read_jsonl(work / "clusters.jsonl")
    assert [r["id"] for r in resumed] == [
        r["id"] for r in read_jsonl(works["ray"] / "clusters.jsonl")
    ]


def test_ingest_on_ray_writes_the_local_rows(
    shards: Path,
    tmp_path: Path,
    local_ray,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A folder of shards and a saved dataset (fields detected per source) on Ray workers: the
    local engine's table, row for row; Parquet files, the uncompressed JSONL file and the
    dataset are cut into several parts."""
    import datasets

    from inspect_arenahard.curate import sources

    monkeypatch.setattr(sources, "PART_ROWS", 50)
    monkeypatch.setattr(sources, "PART_BYTES", 20_000)
    jsonl_parts = sources.split_part(sources.Part("jsonl", str(shards / "part-1.jsonl")))
    assert len(jsonl_parts) > 10 and jsonl_parts[-1].line > 600
    mt_bench = pd.DataFrame(read_jsonl(POOLS / "mt_bench" / "question.jsonl"))
    datasets.Dataset.from_pandas(mt_bench.drop(columns=["reference"])).save_to_disk(
        str(tmp_path / "saved")
    )
    sources = (shards, f"mtb={tmp_path / 'saved'}")
    assert ingest_cli(tmp_path / "local", *sources) == 0
    assert ingest_cli(tmp_path / "ray", *sources, engine="ray") == 0
    local = pd.read_parquet(tmp_path / "local" / "ingested.parquet")
    on_ray = pd.read_parquet(tmp_path / "ray" / "ingested.parquet")
    pd.testing.assert_frame_equal(on_ray, local)
    assert len(local) == 2907 + 80 and local["id"].iloc[0].startswith("pool:")
    assert local["id"].iloc[-1] == "mtb:160" and local["turns"].map(len).max() > 1
    reports = [
        json.loads((tmp_path / w / "ingest_report.json").read_text(encoding="utf-8"))
        for w in ("local", "ray")
    ]
    assert [r["engine"] for r in reports] == ["local", "ray"]
    assert reports[0]["sources"] == reports[1]["sources"]
    multi_turn = local["turns"].map(len) > 1
    assert [s["multi_turn"] for s in reports[1]["sources"]] == [
        int((multi_turn & (local["source"] == name)).sum()) for name in ("pool", "mtb")
    ]
    capsys.readouterr()
    assert ingest_cli(tmp_path / "ray", *sources, engine="ray") == 0
    assert '"cached": true' in capsys.readouterr().out

    # --limit across shards: the first 1,000 records (part-0 holds 726)
    assert ingest_cli(tmp_path / "limit", shards, engine="ray", limit=1000) == 0
    limited = pd.read_parquet(tmp_path / "limit" / "ingested.parquet")
    pd.testing.assert_frame_equal(limited, local.iloc[:1000])


def test_ingest_on_ray_names_the_bad_shard_and_line(
    shards: Path,
    tmp_path: Path,
    local_ray,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One error, the one the local engine gives: the shard and line of a malformed record (in a
    gzip shard, or deep in a JSONL shard that Ray reads in pieces), or both places of an id
    repeated across shards."""
    from inspect_arenahard.curate import sources

    monkeypatch.setattr(sources, "PART_BYTES", 20_000)
    bad = tmp_path / "bad"
    shutil.copytree(shards, bad)
    gz = bad / "part-2.jsonl.gz"
    lines = gzip.open(gz, "rt", encoding="utf-8").read().splitlines(keepends=True)
    lines[100] = '{"conversation_id": "x", "conversation": [oops\n'
    gz.write_bytes(gzip.compress("".join(lines).encode("utf-8")))
    deep = tmp_path / "deep"
    shutil.copytree(shards, deep)
    lines = (deep / "part-1.jsonl").read_text(encoding="utf-8").split("\n")  # prompts hold U+2028
    lines[600] = '{"conversation_id": "y", "conversation": [{"role": "user", "content": 3}]}'
    (deep / "part-1.jsonl").write_text("\n".join(lines), encoding="utf-8")
    dup = tmp_path / "dup"
    shutil.copytree(shards, dup)
    first = pd.read_parquet(dup / "part-0.parquet").iloc[10]
    records = read_jsonl(dup / "part-1.jsonl")
    records[5]["conversation_id"] = first["conversation_id"]
    write_jsonl(dup / "part-1.jsonl", records)
    expected = {
        bad: f"{gz}:101: not valid JSON",
        deep: f"{deep / 'part-1.jsonl'}:601: field 'conversation': message content must be",
        dup: f"{dup / 'part-1.jsonl'}:6: duplicate id '{first['conversation_id']}' "
        f"in field 'conversation_id' (first at {dup / 'part-0.parquet'} row 10)",
    }
    for source, message in expected.items():
        errors = []
        for engine in ("local", "ray"):
            capsys.readouterr()
            assert ingest_cli(tmp_path / f"{source.name}-{engine}", source, engine=engine) == 2
            errors.append(capsys.readouterr().err.strip())
        assert errors[0] == errors[1], errors
        assert len(errors[1].splitlines()) == 1 and message in errors[1], errors[1]
        assert not (tmp_path / f"{source.name}-ray" / "ingested.parquet").exists()


def test_run_config_scale_section_applies_to_ingest(
    shards: Path,
    tmp_path: Path,
    local_ray,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from inspect_arenahard.curate import config

    monkeypatch.setattr(config, "cluster", lambda *args: {"step": "cluster"})  # ingest only
    (tmp_path / "linked").symlink_to(shards)
    path = tmp_path / "curate.yaml"
    path.write_text(
        "work: work/\ningest: {sources: ['linked/part-1.*'], limit: 50}\nscale: {engine: ray}\n",
        encoding="utf-8",
    )
    reports = config.run(path)
    assert reports["ingest"]["engine"] == "ray" and reports["ingest"]["records"] == 50
    assert reports["ingest"]["sources"][0]["name"] == "linked"  # the glob, relative to the config


def test_local_engine_never_imports_ray(tmp_path: Path) -> None:
    (tmp_path / "p.jsonl").write_text('{"id": "a", "prompt": "hi"}\n', encoding="utf-8")
    code = (
        "import sys; from inspect_arenahard.cli import main\n"
        "from inspect_arenahard.curate import cluster, scale\n"
        "cluster.engine_for(scale.ScaleOptions())\n"
        f"assert main(['curate', 'ingest', '--source', {str(tmp_path / 'p.jsonl')!r},"
        f" '--out', {str(tmp_path / 'w')!r}]) == 0\n"
        "assert 'ray' not in sys.modules, 'ray imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_unknown_engine_is_named(tmp_path: Path) -> None:
    from inspect_arenahard.curate.ingest import ingest
    from inspect_arenahard.curate.step_options import ScaleOptions
    from inspect_arenahard.curate.work import Work

    with pytest.raises(ValueError, match="engine must be one of local, ray, got 'spark'"):
        ScaleOptions(engine="spark").key_parts()
    with pytest.raises(ValueError, match="engine must be one of local, ray, got 'spark'"):
        ingest(["x.jsonl"], Work.at(tmp_path, create=True), scale=ScaleOptions(engine="spark"))


@pytest.mark.slow
def test_local_sample_fit_equals_the_ray_engines(works: dict[str, Path], tmp_path: Path) -> None:
    """``--umap-sample`` on the local engine: the same seeded sample, the same fit, the rest
    transformed in this process instead of on Ray actors: the very same clusters and topics."""
    runs = {}
    for engine, source, args in (("ray", works["ray"], RAY), ("local", works["local"], [])):
        work = tmp_path / engine
        shutil.copytree(source, work)
        assert main(["curate", "cluster", str(work), *args, "--min-cluster-size", "10",
                     "--umap-sample", "1000"]) == 0  # fmt: skip
        runs[engine] = work
    local = report(runs["local"])
    assert local["engine"] == "local" and local["kept"] > 1000  # so the sample fit ran
    assert {"umap_fit_sample", "umap_transform"} <= set(local["seconds"])
    assert read_jsonl(runs["local"] / "clusters.jsonl") == read_jsonl(
        runs["ray"] / "clusters.jsonl"
    )
    assert (runs["local"] / "topics.json").read_text() == (runs["ray"] / "topics.json").read_text()
