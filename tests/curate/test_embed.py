"""Embeddings: offline MiniLM found inside its package, OpenAI batching, and the content-hash cache."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from inspect_arenahard.curate import embed as embed_module
from inspect_arenahard.curate.embed import (
    EmbeddingCache,
    MiniLMEmbedder,
    OpenAIEmbedder,
    embed_texts,
    get_embedder,
    minilm_path,
    wants_compile,
)
from inspect_arenahard.evaluate.dataset import load_questions
from tests.helpers.shared_data import shared


def test_minilm_offline_vectors() -> None:
    assert (minilm_path() / "model.safetensors").is_file()
    model = MiniLMEmbedder()
    vectors = model.embed(
        [
            "How do I sort a list in Python?",
            "Sorting a Python list: how?",
            "Best pizza dough recipe",
        ]
    )
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert vectors[0] @ vectors[1] > 0.7 > 0.2 > vectors[0] @ vectors[2]


@pytest.mark.shared_data
def test_bfloat16_vectors_match_float32() -> None:
    """The fast path (bf16 weights, the default on AMX CPUs) gives the same directions as float32
    on real prompts, long ones truncated at 128 tokens included."""
    import torch

    prompts = [q.prompt for q in load_questions(shared("arena-hard-v0.1", "question.jsonl"))[:48]]
    fp32 = MiniLMEmbedder(max_seq_length=128, precision="fp32").embed(prompts)
    bf16_model = MiniLMEmbedder(max_seq_length=128, precision="bf16")
    assert next(bf16_model.model.parameters()).dtype == torch.bfloat16
    bf16 = bf16_model.embed(prompts)
    assert bf16.dtype == np.float32
    cosines = (fp32 * bf16).sum(axis=1)
    assert cosines.min() > 0.999, cosines.min()
    with pytest.raises(ValueError, match="precision must be"):
        MiniLMEmbedder(precision="fp16")


@pytest.mark.shared_data
def test_compiled_model_gives_the_eager_vectors_and_falls_back_without_a_compiler() -> None:
    """torch.compile (inductor, frozen weights) changes vectors only by rounding, on real prompts
    of every length; with no working C++ compiler the first call warns and stays eager."""
    import torch._inductor.config as inductor

    prompts = [q.prompt for q in load_questions(shared("arena-hard-v0.1", "question.jsonl"))[:96]]
    eager = MiniLMEmbedder(max_seq_length=128, batch_size=16)
    expected = eager.embed(prompts)
    compiled = MiniLMEmbedder(max_seq_length=128, batch_size=16)
    compiled.compile()
    vectors = compiled.embed(prompts)
    assert compiled.compiled and (vectors * expected).sum(axis=1).min() > 0.999
    one = compiled.embed(prompts[:1])  # a new batch shape: dynamic, no error
    assert (one[0] @ expected[0]) > 0.999

    broken = MiniLMEmbedder(max_seq_length=128, batch_size=16)
    broken.compile()
    with (
        inductor.patch({"cpp.cxx": ("/nonexistent/c++",)}),
        pytest.warns(RuntimeWarning, match="torch.compile failed, embedding without it"),
    ):
        fallback = broken.embed(prompts[:8])
    assert not broken.compiled and (fallback * expected[:8]).sum(axis=1).min() > 0.999


def test_compile_modes() -> None:
    assert [wants_compile("auto", n) for n in (0, 19_999, 20_000)] == [False, False, True]
    assert wants_compile("on", 1) and not wants_compile("off", 10**7)
    with pytest.raises(ValueError, match="embed compile must be one of auto, on, off"):
        wants_compile("yes", 1)


class FakeEmbeddings:
    """Stands in for ``openai.OpenAI().embeddings``: one vector per input, reversed order in the reply."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def create(self, model: str, input: list[str]):  # type: ignore[no-untyped-def]  # noqa: A002
        self.batches.append(input)
        data = [
            SimpleNamespace(index=i, embedding=[float(len(t)), 1.0, 0.0])
            for i, t in enumerate(input)
        ]
        return SimpleNamespace(data=list(reversed(data)))


def test_openai_batches_order_and_token_limit() -> None:
    fake = FakeEmbeddings()
    embedder = OpenAIEmbedder(batch_size=2, client=SimpleNamespace(embeddings=fake))
    long = "word " * 9000
    vectors = embedder.embed(["a", "bb", "ccc", long])
    assert [len(b) for b in fake.batches] == [2, 2]
    expected = np.array([[1, 1, 0], [2, 1, 0], [3, 1, 0]], dtype=np.float32)
    assert np.allclose(vectors[:3], expected / np.linalg.norm(expected, axis=1, keepdims=True))
    from inspect_arenahard.judging.style_features import count_tokens

    assert count_tokens(fake.batches[1][1]) == OpenAIEmbedder.MAX_TOKENS


def test_cache_embeds_each_text_once_and_survives_a_partial_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_module, "PART_ROWS", 2)
    fake = FakeEmbeddings()
    embedder = OpenAIEmbedder(model="m", client=SimpleNamespace(embeddings=fake))
    texts = ["a", "bb", "a", "ccc", "dddd"]
    first = embed_texts(texts, embedder, tmp_path)
    assert sum(len(b) for b in fake.batches) == 4 and np.allclose(first[0], first[2])
    assert embed_texts(texts, embedder, tmp_path).tolist() == first.tolist()
    assert sum(len(b) for b in fake.batches) == 4
    cache_dir = EmbeddingCache(tmp_path, "m").dir
    (cache_dir / "1.vecs.npy").unlink()  # an interrupted part: its texts are embedded again
    again = embed_texts(texts + ["eeeee"], embedder, tmp_path)
    assert sum(len(b) for b in fake.batches) == 4 + 2 + 1 and np.allclose(again[:5], first)


def test_unknown_embedder() -> None:
    with pytest.raises(ValueError, match="unknown embedder 'bert'"):
        get_embedder("bert")


@pytest.fixture(scope="module")
def onnx_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MiniLM exported and quantized once for this module, in a folder of its own."""
    folder = tmp_path_factory.mktemp("onnx")
    for precision in embed_module.ONNX_PRECISIONS:
        embed_module.minilm_onnx(precision, folder)
    return folder


@pytest.mark.shared_data
def test_onnx_vectors_match_the_torch_model(
    onnx_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ONNX Runtime's float32 graph gives the torch model's vectors; the int8 graph (the default
    without AMX) close ones, cosine ≥ 0.99 on every real prompt (long ones truncated, batches
    padded; ``benchmarks/bench_curate.py`` measures 4,096)."""
    monkeypatch.setenv("ARENAHARD_ONNX_DIR", str(onnx_folder))
    prompts = [q.prompt for q in load_questions(shared("arena-hard-v0.1", "question.jsonl"))[:96]]
    reference = MiniLMEmbedder(max_seq_length=128, precision="fp32").embed(prompts)
    exact = get_embedder("minilm-onnx", max_seq_length=128).embed(prompts)
    assert exact.dtype == np.float32 and exact.shape == reference.shape
    assert (exact * reference).sum(axis=1).min() > 0.99999
    int8 = get_embedder("minilm-onnx:int8", max_seq_length=128).embed(prompts)
    cosines = (int8 * reference).sum(axis=1)
    assert cosines.mean() >= 0.995 and cosines.min() >= 0.99, cosines.min()
    assert not np.allclose(int8, reference, atol=1e-4)  # it is the quantized graph


def test_onnx_graphs_are_exported_once_and_cached_apart(
    onnx_folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(embed_module, "_export_fp32", None)  # a second export would fail
    monkeypatch.setattr(embed_module, "_quantize", None)
    assert embed_module.minilm_onnx("int8", onnx_folder).is_file()
    monkeypatch.setenv("ARENAHARD_ONNX_DIR", str(onnx_folder))
    onnx = get_embedder("minilm-onnx")
    names = {onnx.name, get_embedder("minilm-onnx:int8").name, MiniLMEmbedder.name}
    assert len(names) == 3 and onnx.name == "all-MiniLM-L6-v2-onnx-fp32"
    assert get_embedder("minilm-onnx", max_seq_length=128).name.endswith("-max128")
    embed_texts(["How do I sort a list in Python?"], onnx, tmp_path)
    assert [p.name for p in (tmp_path / "embeddings").iterdir()] == [onnx.name]
    with pytest.raises(ValueError, match="ONNX precision"):
        get_embedder("minilm-onnx:fp16")


def test_minilm_runs_on_the_fastest_backend_that_keeps_the_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ONNX Runtime's int8 graph without AMX, torch with AMX or without ONNX Runtime.
    ``get_embedder`` resolves it, so both engines (the Ray actors call it too) embed alike; a
    named backend is kept."""
    monkeypatch.setattr(embed_module, "has_amx", lambda: False)
    assert embed_module.fastest_minilm() == "minilm-onnx:int8"
    built: list[str] = []
    monkeypatch.setattr(embed_module, "MiniLMOnnxEmbedder", lambda **kw: built.append(f"onnx {kw}"))
    monkeypatch.setattr(embed_module, "MiniLMEmbedder", lambda **kw: built.append("torch"))
    get_embedder("minilm", threads=2)
    get_embedder("minilm-torch")
    get_embedder("minilm-onnx")
    assert built == [
        "onnx {'batch_size': 64, 'max_seq_length': None, 'precision': 'int8', 'threads': 2}",
        "torch",
        "onnx {'batch_size': 64, 'max_seq_length': None, 'precision': 'fp32', 'threads': None}",
    ]
    monkeypatch.setattr(embed_module, "has_amx", lambda: True)
    assert embed_module.fastest_minilm() == "minilm-torch"
    monkeypatch.setattr(embed_module, "has_amx", lambda: False)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert embed_module.fastest_minilm() == "minilm-torch"
