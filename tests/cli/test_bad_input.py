"""Careless input through the real entry points: `inspect eval` and `arenahard`, as subprocesses.

Every case must fail before any model call with a non-zero exit, one line that names the
culprit, and no traceback. The subprocesses of a table run a few at a time (each pays Inspect's
start-up) and each case then checks its own result.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers.shared_data import shared

REPO = Path(__file__).resolve().parents[2]
V01 = shared("arena-hard-v0.1")
V2 = shared("arena-hard-v2.0")
POOL = shared("prompt_pools", "openassistant", "en_100_text.jsonl")
BATTLES = shared("battles", "lmarena_74e8b6f_arena_hard_battles.jsonl")


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        COLUMNS="1000",  # Inspect prints its one line through rich, which wraps at the terminal width
        INSPECT_LOG_DIR=str(tmp / "logs"),
        INSPECT_CACHE_DIR=str(tmp / "cache"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]),
    )
    return env


def _run(args: list[str], tmp: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=_env(tmp), capture_output=True, text=True, timeout=300)


def inspect_eval(*args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        *args,
        "--model",
        "mockllm/model",
        "--display",
        "plain",
    ]


def arenahard(*args: str) -> list[str]:
    """The ``arenahard`` console script's entry point."""
    return [
        sys.executable,
        "-c",
        "import sys; from inspect_arenahard.cli import main; sys.exit(main())",
        *args,
    ]


def _data_dirs(root: Path) -> dict[str, Path]:
    """Small arena-hard folders with one defect each (two real v0.1 questions as the base)."""
    questions = (V01 / "question.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    ids = [json.loads(q)["question_id"] for q in questions]
    answers = {
        json.loads(a)["question_id"]: a
        for a in (V01 / "model_answer" / "gpt-4-0314.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    }
    dirs = {}
    for name, lines, answer_ids in [
        ("not_json", [questions[0], "{not json"], ids),
        ("no_prompt", [questions[0], json.dumps({"question_id": "q2", "category": "x"})], ids),
        ("missing_ids", questions, ids[:1]),
    ]:
        folder = root / name
        (folder / "model_answer").mkdir(parents=True)
        (folder / "question.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / "model_answer" / "gpt-4-0314.jsonl").write_text(
            "\n".join(answers[i] for i in answer_ids) + "\n", encoding="utf-8"
        )
        dirs[name] = folder
    return dirs


# (case id, command builder given the fixture folders, text the one line must contain)
INSPECT_CASES = [
    (
        "data_dir missing",
        lambda d: inspect_eval("arenahard", "-T", "data_dir=no/such/folder"),
        "data_dir='no/such/folder': no such folder",
    ),
    (
        "line not JSON",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={d['not_json']}"),
        "question.jsonl:2: not valid JSON",
    ),
    (
        "question without prompt",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={d['no_prompt']}"),
        "question.jsonl:2: missing field 'prompt' or 'turns'",
    ),
    (
        "baseline missing ids",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={d['missing_ids']}"),
        "gpt-4-0314: 1 missing",
    ),
    (
        "version",
        lambda d: inspect_eval("arenahard", "-T", "version=v3"),
        "version='v3' is not one of v0.1, v2.0, custom",
    ),
    (
        "category typo",
        lambda d: inspect_eval(
            "arenahard", "-T", f"data_dir={V2}", "-T", "version=v2.0", "-T", "category=hard_promt"
        ),
        "did you mean 'hard_prompt'?",
    ),
    (
        "scorer typo",
        lambda d: inspect_eval("arenahard", "-T", "scorer=comittee"),
        "did you mean 'committee'?",
    ),
    (
        "strong_weight not a number",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={V01}", "-T", "strong_weight=abc"),
        "strong_weight='abc' must be a whole number of battles, at least 1",
    ),
    (
        "misspelt argument",
        lambda d: inspect_eval("arenahard", "-T", "strongweight=3"),
        "unknown task argument 'strongweight' (did you mean 'strong_weight'?)",
    ),
    (
        "strong_weight zero",
        lambda d: inspect_eval("arenahard", "-T", "strong_weight=0"),
        "strong_weight=0 must be a whole number of battles, at least 1",
    ),
    (
        "strong_weight fraction (the ranking counts whole battles)",
        lambda d: inspect_eval("arenahard", "-T", "strong_weight=2.5"),
        "strong_weight=2.5 must be a whole number of battles, at least 1",
    ),
    (
        "variant misspelt argument",
        lambda d: inspect_eval("arenahard_v2_hard", "-T", "judge_retry=2"),
        "unknown task argument 'judge_retry' (did you mean 'judge_retries'?)",
    ),
    (
        "judge_retries negative",
        lambda d: inspect_eval("arenahard", "-T", "judge_retries=-1"),
        "judge_retries=-1 must be at least 0",
    ),
    (
        "committee_rounds fraction",
        lambda d: inspect_eval("arenahard", "-T", "committee_rounds=1.5"),
        "committee_rounds=1.5 must be an integer",
    ),
    (
        "judge_max_tokens zero",
        lambda d: inspect_eval("arenahard", "-T", "judge_max_tokens=0"),
        "judge_max_tokens=0 must be at least 1",
    ),
    (
        "cache not a bool",
        lambda d: inspect_eval("arenahard", "-T", "cache=nope"),
        "cache='nope' must be true or false",
    ),
    (
        "v2.0 without creative baseline",
        lambda d: inspect_eval("arenahard", "-T", "version=v2.0", "-T", f"data_dir={V2}"),
        "-T category=hard_prompt",
    ),
    (
        "dataset missing",
        lambda d: inspect_eval("arenahard", "-T", "version=custom", "-T", "dataset=nope.jsonl"),
        "question file not found",
    ),
    (
        "custom without data",
        lambda d: inspect_eval("arenahard", "-T", "version=custom"),
        "version=custom needs -T data_dir",
    ),
    (
        "task file, relative data_dir",
        lambda d: inspect_eval("tasks/arenahard_v01.py", "-T", "data_dir=no/such"),
        f"({REPO}/no/such)",
    ),
    (
        "reference unknown",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={V01}", "-T", "reference=gpt-5"),
        "reference='gpt-5' is neither a file nor a model",
    ),
    (
        "judge unknown provider",
        lambda d: inspect_eval("arenahard", "-T", f"data_dir={V01}", "-T", "judge=nonsense/x"),
        "judge nonsense/x (-T judge; choose with --model-role judge",
    ),
    (
        "committee of one",
        lambda d: inspect_eval(
            "arenahard",
            "-T",
            f"data_dir={V01}",
            "-T",
            "scorer=committee",
            "--model-role",
            "committee=mockllm/a",
        ),
        "the committee role needs at least 2 judges",
    ),
    ("scaleeval without data", lambda d: inspect_eval("scaleeval"), "scaleeval needs -T data="),
    (
        "autoarena unknown domain",
        lambda d: inspect_eval("autoarena_questions", "-T", "domains=poetry"),
        "unknown domain 'poetry'",
    ),
    (
        "probes typo",
        lambda d: inspect_eval("arenahard_probes", "-T", "probes=nul"),
        "probes: nul unknown (did you mean 'null'?)",
    ),
    (
        "probes prompts zero",
        lambda d: inspect_eval("arenahard_probes", "-T", "prompts=0"),
        "prompts=0 must be at least 1",
    ),
    (
        "probes judge_retries",
        lambda d: inspect_eval(
            "arenahard_probes", "-T", f"data_dir={V01}", "-T", "judge_retries=x"
        ),
        "judge_retries='x' must be an integer",
    ),
]

CLI_CASES = [
    (
        "leaderboard empty folder",
        lambda d: arenahard("leaderboard", str(d["empty"])),
        "no Inspect logs",
    ),
    (
        "leaderboard no such path",
        lambda d: arenahard("leaderboard", "no/such/logs"),
        "no such log file or folder: no/such/logs",
    ),
    (
        "leaderboard --battles folder",
        lambda d: arenahard("leaderboard", "--battles", str(d["empty"])),
        "is a folder; expected a JSONL file",
    ),
    (
        "leaderboard --battles missing",
        lambda d: arenahard("leaderboard", "--battles", "nope.jsonl"),
        "nope.jsonl: no such file",
    ),
    (
        "leaderboard --plot format",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--plot", "lb.xyz"),
        "unsupported plot format .xyz",
    ),
    (
        "leaderboard --ci out of range",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--ci", "150"),
        "'150' must be a confidence level",
    ),
    (
        "leaderboard --baseline unknown",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--baseline", "gpt-2"),
        "gpt-2",
    ),
    (
        "leaderboard --json in missing folder",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--json", "no/such/lb.json"),
        "folder no/such does not exist",
    ),
    (
        "leaderboard --rounds 0",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--rounds", "0"),
        "bootstrap rounds must be at least 1",
    ),
    (
        "leaderboard style feature typo",
        lambda d: arenahard("leaderboard", "--battles", str(BATTLES), "--style-control", "lenght"),
        "unknown style feature 'lenght'",
    ),
    (
        "metrics --ci not a number",
        lambda d: arenahard("metrics", "--games", "x.jsonl", "--reference", "r.csv", "--ci", "abc"),
        "'abc' must be a number",
    ),
    (
        "metrics benchmark missing",
        lambda d: arenahard("metrics", "--benchmark", "nope.jsonl", "--reference", str(BATTLES)),
        "nope.jsonl",
    ),
    (
        "power --delta zero",
        lambda d: arenahard("power", str(d["logs"]), "--delta", "0"),
        "delta must be positive",
    ),
    (
        "curate filter empties pool",
        lambda d: arenahard("curate", "cluster", str(d["work"]), "--min-chars", "100000"),
        "the min_length filter removed all",
    ),
    (
        "curate hub unreachable",
        lambda d: arenahard(
            "curate", "ingest", "--source", "nobody/no-such-dataset", "--out", str(d["empty"] / "w")
        ),
        "source 'nobody/no-such-dataset' is neither",
    ),
    (
        "curate config missing",
        lambda d: arenahard("curate", "run", "nope.yaml"),
        "config file not found: nope.yaml",
    ),
    ("audit nothing to read", lambda d: arenahard("audit"), "give LOG paths or --answers DIR"),
    (
        "report without logs",
        lambda d: arenahard("report", str(d["empty"]), "--html", str(d["empty"] / "site")),
        "no Inspect logs",
    ),
    (
        "import unknown judge",
        lambda d: arenahard(
            "import",
            "arena-hard-auto",
            str(V01),
            "--judge",
            "gpt-5",
            "--out",
            str(d["empty"] / "x"),
        ),
        "gpt-5",
    ),
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad-input")
    dirs = _data_dirs(root)
    dirs["empty"] = root / "empty"
    dirs["empty"].mkdir()
    dirs["logs"] = root / "imported"
    result = _run(
        arenahard(
            "import", "arena-hard-auto", str(V01), "--judge", "gpt-4o", "--out", str(dirs["logs"])
        ),
        root,
    )
    assert result.returncode == 0, result.stderr
    dirs["work"] = root / "work"
    result = _run(
        arenahard("curate", "ingest", "--source", str(POOL), "--out", str(dirs["work"])), root
    )
    assert result.returncode == 0, result.stderr
    return dirs


@pytest.fixture(scope="module")
def results(
    folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every case of both tables, three subprocesses at a time."""
    tmp = tmp_path_factory.mktemp("bad-input-runs")
    cases = {name: build(folders) for name, build, _ in INSPECT_CASES + CLI_CASES}
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(_run, cmd, tmp) for name, cmd in cases.items()}
    return {name: future.result() for name, future in futures.items()}


def assert_one_line_error(
    result: subprocess.CompletedProcess[str], culprit: str, *, only_line: bool
) -> None:
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output and "╭─" not in output, output
    hits = [line for line in output.splitlines() if culprit in line]
    assert len(hits) == 1, f"{culprit!r} not on exactly one line:\n{output}"
    if only_line:  # nothing else printed: no banner, no usage, no partial table
        assert [line for line in output.splitlines() if line.strip()] == hits, output


@pytest.mark.parametrize(
    "name, culprit", [(n, c) for n, _, c in INSPECT_CASES], ids=[n for n, _, _ in INSPECT_CASES]
)
def test_inspect_eval_bad_input(
    results: dict[str, subprocess.CompletedProcess[str]], name: str, culprit: str
) -> None:
    assert_one_line_error(results[name], culprit, only_line=True)


@pytest.mark.parametrize(
    "name, culprit", [(n, c) for n, _, c in CLI_CASES], ids=[n for n, _, _ in CLI_CASES]
)
def test_arenahard_cli_bad_input(
    results: dict[str, subprocess.CompletedProcess[str]], name: str, culprit: str
) -> None:
    result = results[name]
    # argparse's own errors come with its usage lines; every other error is the only line on stderr
    assert_one_line_error(result, culprit, only_line="usage:" not in result.stderr)
    assert result.stderr.strip().splitlines()[-1].startswith("arenahard"), result.stderr


def test_damaged_log_is_skipped_and_named(folders: dict[str, Path], tmp_path: Path) -> None:
    """A corrupt compressed member (zstandard.ZstdError) costs that log only, never the table:
    a damaged sample member is named, its games still come from the intact summaries. (The
    victim is made a log written before the score records, which the audit reads in full.)"""
    from inspect_ai.log import read_eval_log, write_eval_log

    from inspect_arenahard.stats.game_record import SCORE_RECORDS

    logs = tmp_path / "logs"
    shutil.copytree(folders["logs"], logs)
    good, victim = sorted(logs.glob("*.eval"))
    damaged = victim.with_name("damaged.eval")
    older = read_eval_log(str(victim))
    assert older.eval.metadata is not None and older.eval.metadata.pop(SCORE_RECORDS)
    write_eval_log(older, str(damaged))
    victim.unlink()
    with zipfile.ZipFile(damaged) as archive:
        member = next(i for i in archive.infolist() if i.filename.startswith("samples/"))
    data = bytearray(damaged.read_bytes())
    start = member.header_offset + 30 + len(member.filename.encode()) + len(member.extra) + 16
    data[start : start + 64] = bytes(b ^ 0xFF for b in data[start : start + 64])
    damaged.write_bytes(bytes(data))

    result = _run(arenahard("leaderboard", str(logs), "--rounds", "10"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "(baseline)" in result.stdout and "gpt-4o" in result.stdout
    notes = [line for line in result.stderr.splitlines() if "damaged.eval" in line]
    assert notes and all(member.filename in n for n in notes), result.stderr
    assert any("ZstdError" in n or "damaged" in n for n in notes), result.stderr


def test_ci_means_the_same_as_fraction_or_percent_and_files_are_announced(tmp_path: Path) -> None:
    outputs = {}
    for ci in ("95", "0.95"):
        plot = tmp_path / f"lb-{ci}.pdf"
        result = _run(
            arenahard(
                "leaderboard",
                "--battles",
                str(BATTLES),
                "--rounds",
                "20",
                "--ci",
                ci,
                "--plot",
                str(plot),
            ),
            tmp_path,
        )
        assert result.returncode == 0, result.stderr
        assert f"wrote {plot}" in result.stdout
        assert plot.read_bytes()[:5] == b"%PDF-"  # the extension decides the format
        outputs[ci] = result.stdout.replace(str(plot), "")
    assert outputs["95"] == outputs["0.95"]
    assert "95% CI" in outputs["95"]


def test_power_without_pairs_says_so(folders: dict[str, Path], tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    [one] = [
        p
        for p in folders["logs"].glob("*.eval")
        if read_eval_log(str(p), header_only=True).eval.model.endswith("gpt-4o-mini")
    ]
    result = _run(arenahard("power", str(one)), tmp_path)
    assert result.returncode == 0, result.stderr
    paired = next(line for line in result.stdout.splitlines() if line.startswith("paired z-test "))
    assert " 0 " not in paired.split("  ", 1)[1].replace("0/0", "")  # no "prompts needed 0"
    assert "only one model is scored" in result.stdout


def test_a_bug_keeps_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only user errors become one line: an error from deep inside a library is a bug and is raised."""
    import numpy as np

    from inspect_arenahard.cli import leaderboard, main

    monkeypatch.setattr(leaderboard, "run", lambda args: np.zeros(0).max())
    with pytest.raises(ValueError, match="zero-size array"):
        main(["leaderboard", "--battles", str(BATTLES)])
    monkeypatch.setattr(
        leaderboard, "run", lambda args: leaderboard.read_battles_soon(Path("nope.jsonl")).result()
    )
    assert main(["leaderboard", "--battles", str(BATTLES)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "arenahard leaderboard: error: nope.jsonl: no such file or directory"
    )


def test_checks_and_suggestions() -> None:
    from inspect_arenahard.errors import (
        UserError,
        check_bool,
        check_number,
        confidence_level,
        did_you_mean,
    )

    assert confidence_level("95") == confidence_level(0.95) == 0.95 and confidence_level(
        "99.9"
    ) == pytest.approx(0.999)
    for bad in ("0", "1", "100", "-5", "abc", "nan", "1.5", "0.3", "20"):
        with pytest.raises(UserError):
            confidence_level(bad)
    assert (
        check_number("n", "3", integer=True, minimum=0) == 3
        and check_number("w", "2.5", above=0) == 2.5
    )
    for value in (True, "1.5", None, "inf"):
        with pytest.raises(UserError, match="n="):
            check_number("n", value, integer=True)
    assert check_bool("cache", "False") is False and check_bool("cache", 1) is True
    assert (
        did_you_mean("hard_promt", ["hard_prompt", "creative_writing"])
        == " (did you mean 'hard_prompt'?)"
    )
    assert did_you_mean("zzz", ["hard_prompt"]) == ""


def test_a_missing_extra_is_named_in_one_line(tmp_path: Path) -> None:
    """Curation on an install without the ``embed`` extra (torch blocked at import)."""
    (tmp_path / "p.jsonl").write_text(
        "".join(
            json.dumps(
                {"prompt": f"Explain in detail how sorting algorithm {i} handles big arrays"}
            )
            + "\n"
            for i in range(30)
        )
    )
    (tmp_path / "c.yaml").write_text(
        "work: work\ningest:\n  sources: [p.jsonl]\ncluster:\n  embedder: minilm\n  min_cluster_size: 5\n"
    )
    block = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'sentence_transformers'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from inspect_arenahard.cli import main; sys.exit(main())\n"
    )
    cmd = [sys.executable, "-c", block, "curate", "run", "c.yaml"]
    result = _run(cmd, tmp_path, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "arenahard curate: error: this needs torch, from the 'embed' extra: "
        "pip install 'inspect-arenahard[embed]'"
    )
    assert "Traceback" not in result.stderr


def test_s3_without_credentials_names_the_bucket_and_the_variables(tmp_path: Path) -> None:
    env = {k: v for k, v in _env(tmp_path).items() if not k.startswith("AWS_")}
    env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"), AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true", AWS_ENDPOINT_URL="http://127.0.0.1:9",
    )  # fmt: skip
    result = subprocess.run(
        arenahard("leaderboard", "s3://my-bucket/arenahard"),
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "no credentials for bucket 'my-bucket'" in line and "AWS_ACCESS_KEY_ID" in line
