"""The commands the README's quick starts and the offline page show are the commands these tests
run: read from the Markdown, so the page and the test are the same text.

A ```` ```bash ```` block under ``<!-- docs-test: run -->`` runs as written (``bash -euo pipefail``)
as a user runs it: in a scratch copy of the checkout with nothing beside it (no ``../shared``),
the copy's package first on the path and the Hugging Face hub switched off, so the quick starts
prove they need only what the package ships; one under
``<!-- docs-test: parse -->`` (it needs an API key or a model server) is parsed by each program's
own argument parser. Every ``bash`` block of those sections must carry one of the two marks.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest

import inspect_arenahard

REPO = Path(inspect_arenahard.__file__).resolve().parents[2]
README, OFFLINE = REPO / "README.md", REPO / "docs" / "offline.md"
MARK = "<!-- docs-test: "
BLOCK = re.compile(r"<!-- docs-test: (run|parse) -->\n```bash\n(.*?)\n```", re.S)
FENCE = re.compile(r"^```bash$", re.M)


def commands_text(doc: Path) -> str:
    """The README's quick-start and adaptive-judging sections, or the whole offline page."""
    text = doc.read_text(encoding="utf-8")
    if doc != README:
        return text
    sections = re.split(r"^(?=## )", text, flags=re.M)
    return "".join(s for s in sections if s.startswith(("## Quick start", "## Stop when you know")))


def blocks(mode: str) -> list[str]:
    """The command blocks of one mode, each once (a block shown on two pages runs once)."""
    found = [
        b for doc in (README, OFFLINE) for m, b in BLOCK.findall(commands_text(doc)) if m == mode
    ]
    return list(dict.fromkeys(found))


def commands(block: str) -> list[str]:
    """The block's commands, continuation lines joined."""
    return [c for c in block.replace("\\\n", " ").splitlines() if c.strip()]


def test_every_command_block_is_run_or_parsed() -> None:
    for doc in (README, OFFLINE):
        text = commands_text(doc)
        assert len(FENCE.findall(text)) == len(BLOCK.findall(text)) > 0, (
            f"{doc.name}: a bash block without {MARK}run/parse --> mark"
        )
    assert blocks("run") and blocks("parse")


def test_ci_runs_the_readme_test_command() -> None:
    readme = README.read_text(encoding="utf-8")
    develop = readme.split("## Develop and test", 1)[1]
    command = re.search(r"```bash\n(?:.*\n)*?(python -m pytest[^\n]*)\n```", develop)
    assert command and command.group(1) == "python -m pytest -q"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == command.group(1)  # the last thing CI does is the README's test command


# ------------------------------------------------------------------------------- run


def scratch_checkout(root: Path) -> Path:
    """``root/checkout``: the package's sources (with its shipped sample) and the run configs,
    alone in a fresh folder (a stray ``../shared`` would make the test prove nothing)."""
    checkout = root / "checkout"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(REPO / "src", checkout / "src", ignore=skip)
    for data in ("tasks", "scorers"):  # the wheel ships both inside the package
        shutil.copytree(REPO / data, checkout / data, ignore=skip)
    assert not (root / "shared").exists()
    return checkout


def offline_env(checkout: Path, home: Path) -> dict[str, str]:
    """The environment of a new user's shell without network: the copy's package imported, the
    Hugging Face hub off, empty caches (a first run), no API key."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return env | {
        "PYTHONPATH": str(checkout / "src"),
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(home / "hf"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def check_outputs(block: str, stdout: str, stderr: str, checkout: Path) -> None:
    """What the quick starts promise: a ranked table, the report page, the clusters."""
    if "arenahard leaderboard" in block:
        ranked = re.findall(r"^\s*(\d+)\s+(\S+).*?(\d+\.\d)", stdout, re.M)
        assert [int(rank) for rank, _, _ in ranked][:3] == [1, 2, 3], stdout[-2000:]
        assert "(baseline)" in stdout
    if "--html report/" in block:
        page = (checkout / "report" / "index.html").read_text(encoding="utf-8")
        assert "<html" in page and "gpt-4o-mini" in page
    if "curate run" in block:
        # the summary's lines only: no model-loading bars, no ONNX Runtime advice
        assert not re.search(r"WARNING|Loading weights|it/s", stderr), stderr[-2000:]
        rows = [
            json.loads(line)
            for line in (checkout / "work" / "curate-offline" / "clusters.jsonl").open()
        ]
        assert len(rows) > 1000  # of the 1,250 shipped prompts, after the filters
        assert len({r["cluster"] for r in rows} - {-1}) >= 5
        assert all(r["topic"] for r in rows if r["cluster"] != -1)


@pytest.mark.slow
@pytest.mark.parametrize("block", blocks("run"), ids=lambda b: b.split("\n", 1)[0][:60])
def test_runnable_block_runs_as_written(block: str, tmp_path: Path) -> None:
    checkout = scratch_checkout(tmp_path)
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=1500,
        env=offline_env(checkout, tmp_path),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert "shared/data" not in result.stdout + result.stderr  # nothing beside the checkout
    # what the commands say they wrote: `wrote PATH` lines, and curation steps' `"output"` fields
    announced = re.findall(
        r'^wrote (?:.* to )?(\S+?)(?::|$)|"output": "([^"]+)"', result.stdout, re.M
    )
    written = [line or report for line, report in announced]
    assert written, result.stdout[-2000:]
    for path in written:
        assert (checkout / path).exists(), path
    check_outputs(block, result.stdout, result.stderr, checkout)


def test_user_pages_do_not_name_the_development_data() -> None:
    """Only the development page (and the benchmark pages, which say what the figures were measured
    on) may name the data folder beside this repository's checkout."""
    pages = [p for p in (REPO / "docs").glob("*.md") if p.stem not in {"development", "benchmarks"}]
    for doc in (README, OFFLINE, REPO / "tasks" / "curate_offline.yaml", *pages):
        assert "shared/data" not in doc.read_text(encoding="utf-8"), doc.name


# ------------------------------------------------------------------------------- parse


def check_arenahard(args: list[str]) -> None:
    """The parser the ``arenahard`` command builds."""
    from inspect_arenahard.cli import build_parser

    try:
        build_parser().parse_args(args)
    except SystemExit as ex:
        raise AssertionError(f"arenahard {' '.join(args)}: does not parse") from ex


def check_inspect(args: list[str]) -> None:
    """Inspect's own click parser; for ``eval``, also the task name and its ``-T`` names."""
    from inspect_ai._cli.main import inspect as inspect_cli

    from inspect_arenahard._registry import BARE_TASKS

    group = inspect_cli.make_context("inspect", list(args), resilient_parsing=True)
    command = inspect_cli.get_command(group, args[0])
    assert command is not None, f"inspect {args[0]}: no such command"
    try:
        ctx = command.make_context(args[0], list(args[1:]))
    except click.UsageError as ex:
        raise AssertionError(f"inspect {' '.join(args)}: {ex}") from ex
    if args[0] == "eval":
        tasks = {t.__name__: t for t in BARE_TASKS}
        for name in ctx.params["tasks"]:
            assert name in tasks, f"inspect eval {name}: not a task of this package"
            parameters = inspect.signature(tasks[name]).parameters
            for t in ctx.params["t"] or ():
                assert t.split("=", 1)[0] in parameters, f"{name}: no task argument {t!r}"


def check_pip(args: list[str]) -> None:
    """An install line is one ``.ci/install`` runs, so the page and the installer agree."""
    install = (REPO / ".ci" / "install").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [shlex.split(line, comments=True) for line in install.splitlines()]
    installs = [
        [word for word in line[line.index("install") + 1 :] if not word.startswith("${")]
        for line in lines
        if "install" in line[:6]
    ]  # "${CONSTRAINTS[@]}" (the pinned versions) is how .ci/install installs, not what
    assert args[1:] in installs, f"pip {' '.join(args)}: not what .ci/install installs"


def check_python(args: list[str]) -> str | None:
    """``python -c`` compiles; ``python -m`` names a module, or a package ``.ci/install`` installs
    that this machine lacks (then the reason is returned, to skip)."""
    if args[0] == "-c":
        compile(args[1], "<docs>", "exec")
        return None
    assert args[0] == "-m", args
    top = args[1].split(".")[0]
    if importlib.util.find_spec(top) is None:
        install = (REPO / ".ci" / "install").read_text(encoding="utf-8")
        assert top.replace("_", "-") in install, f"python -m {args[1]}: no such module"
        return f"{top} is not installed here (.ci/install installs it)"
    assert importlib.util.find_spec(args[1]) is not None, f"python -m {args[1]}: no such module"
    return None


def check(command: str) -> str | None:
    """Parse one command line with the parser of the program it runs; a reason to skip when the
    program is one this machine lacks."""
    if assigned := re.fullmatch(r"\w+=\$\((.*)\)", command.strip()):
        return check(assigned.group(1))
    words = shlex.split(command, comments=True)
    while words and re.fullmatch(r"\w+=.*", words[0]):  # VAR=value before the program
        words.pop(0)
    if words and words[-1] == "&":
        words.pop()
    program, args = words[0], words[1:]
    checkers = {
        "arenahard": check_arenahard,
        "inspect": check_inspect,
        "pip": check_pip,
        "python": check_python,
    }
    assert program in checkers, f"no parser to check {program!r} with: run the block instead"
    return checkers[program](args)


@pytest.mark.parametrize("block", blocks("parse"), ids=lambda b: b.split("\n", 1)[0][:60])
def test_block_that_needs_a_model_parses(block: str) -> None:
    missing = [reason for command in commands(block) if (reason := check(command))]
    if missing:  # every other command of the block was still checked
        pytest.skip("; ".join(missing))


@pytest.mark.parametrize(
    "command",
    [
        "arenahard leaderboard logs/ --stlye-control length",
        "inspect eval arenahard --modle openai/gpt-4o",
        "inspect eval arenahard -T strongweight=3",
        "inspect eval arenahrd --model openai/gpt-4o",
        "pip install llama-cpp-python",
        "python -m inspect_arenahard.no_such_module",
        "curl https://example.com",
    ],
)
def test_a_wrong_command_fails_the_check(command: str) -> None:
    with pytest.raises(AssertionError):
        check(command)
