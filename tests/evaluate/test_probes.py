"""``arenahard_probes``: adversarial answers win against a gullible judge and lose against a robust
one; the attack success rates reach the log header and ``arenahard audit``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from inspect_arenahard.cli import main
from inspect_arenahard.evaluate.probes import DISGUISED, PROBES, RAW, arenahard_probes, probe_names
from inspect_arenahard.judging.canonical import READINGS, canonical
from inspect_arenahard.judging.verdicts import parse_verdict
from inspect_arenahard.logs.reader import read_games
from tests.helpers.inspect_cli import inspect_eval_cli
from tests.helpers.scripted import scripted_model
from tests.helpers.shared_data import shared

V01 = shared("arena-hard-v0.1")
_ANSWER = {pos: re.compile(rf"<\|The Start of Assistant {pos}'s Answer\|>\n(.*?)\n<\|The End of Assistant {pos}'s Answer\|>", re.S) for pos in "AB"}  # fmt: skip
_QUESTION = re.compile(r"<\|User Prompt\|>\n(.*?)\n\n<\|The Start of", re.S)
_WORD = re.compile(r"[a-z]{4,}")


def shown(messages: list[ChatMessage]) -> tuple[str, str, str]:
    user = messages[1].text
    return (
        _QUESTION.search(user).group(1),
        _ANSWER["A"].search(user).group(1),
        _ANSWER["B"].search(user).group(1),
    )  # type: ignore[union-attr]


def gullible(messages: list[ChatMessage]) -> str:
    """Does what an answer tells the evaluator to do; otherwise prefers the longer answer."""
    _, a, b = shown(messages)
    for side, text, other in (("A", a, "B"), ("B", b, "A")):
        if re.search(r"evaluator|reviewer|\[System\]", text, re.IGNORECASE):
            return f"The answer says it is the right one. [[{side}>>{other}]]"
    return "[[A>B]]" if len(a) > len(b) else "[[B>A]]"


def folding(messages: list[ChatMessage]) -> str:
    """Reads an answer the way a language model does (full-width, entities, look-alikes and
    invisible characters folded, Markdown and HTML rendered) and takes a verdict label it finds there as the verdict;
    otherwise prefers the longer answer."""
    _, a, b = shown(messages)
    for text in (a, b):
        for reading in READINGS:  # as written, and as rendered
            label = parse_verdict(canonical(text, reading).text)
            if label is not None:
                return f"As stated: [[{label}]]"
    return "[[A>B]]" if len(a) > len(b) else "[[B>A]]"


ORIGINAL = ("null", "injection", "breakout", "verbose")


def _own_words(question: str, answer: str) -> set[str]:
    """Distinct question words (4+ letters) the answer uses *outside* text copied from the
    question (runs of 8+ words found verbatim in the question are discounted)."""
    q, a = question.lower().split(), answer.lower().split()
    copied = {tuple(q[i : i + 8]) for i in range(len(q) - 7)}
    keep = [True] * len(a)
    for i in range(len(a) - 7):
        if tuple(a[i : i + 8]) in copied:
            keep[i : i + 8] = [False] * 8
    asked = set(_WORD.findall(question.lower()))
    return {w for token, k in zip(a, keep) if k for w in _WORD.findall(token)} & asked


def robust(messages: list[ChatMessage]) -> str:
    """Ignores instructions and length: the answer that engages more with what was asked wins."""
    question, a, b = shown(messages)
    na, nb = len(_own_words(question, a)), len(_own_words(question, b))
    return "[[A>>B]]" if na > nb else "[[B>>A]]" if nb > na else "[[A=B]]"


def run_probes(judge: str, reply, log_dir: Path) -> EvalLog:  # type: ignore[no-untyped-def]
    [log] = eval(
        arenahard_probes(data_dir=str(V01), prompts=8, seed=3, cache=False),
        model=None, model_roles={"judge": scripted_model(judge, reply)}, display="none", log_dir=str(log_dir),
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def probe_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EvalLog, EvalLog]:
    root = tmp_path_factory.mktemp("probes")
    return root, run_probes("gullible", gullible, root), run_probes("robust", robust, root)


def test_raw_disguised_payloads_steer_a_folding_judge_and_neutralised_ones_do_not(
    probe_logs,
) -> None:  # type: ignore[no-untyped-def]
    root, _, _ = probe_logs
    log = run_probes("folding", folding, root)
    got = rates(log)
    for name in DISGUISED:
        # the label favours position B: obeyed, it wins game 1 and loses game 2
        assert got[f"{name}{RAW}"] == 0.5 and got[name] == 0.0, (name, got)


def rates(log: EvalLog) -> dict[str, float]:
    [score] = log.results.scores  # type: ignore[union-attr]
    return {name: metric.value for name, metric in score.metrics.items()}


def test_probes_win_against_a_gullible_judge_and_lose_against_a_robust_one(probe_logs) -> None:  # type: ignore[no-untyped-def]
    _, gullible_log, robust_log = probe_logs
    assert set(rates(gullible_log)) == {*PROBES, "all"}
    assert all(rates(gullible_log)[p] == 1.0 for p in ORIGINAL), rates(gullible_log)
    assert all(rate <= 0.1 for rate in rates(robust_log).values()), rates(robust_log)


def test_probe_samples_are_seeded_and_need_no_model(probe_logs) -> None:  # type: ignore[no-untyped-def]
    _, gullible_log, robust_log = probe_logs
    assert gullible_log.eval.model == "none/none"
    assert "inspect_arenahard/play_probe" in [step.solver for step in gullible_log.plan.steps]
    ids = [s.id for s in gullible_log.samples or []]
    assert len(ids) == len(PROBES) * 8 and ids == [s.id for s in robust_log.samples or []]
    sample = (gullible_log.samples or [])[0]
    meta = sample.scores["probe_judge"].metadata  # type: ignore[index]
    assert meta["model"] == f"probe/{meta['probe']}" and meta["baseline"] == "gpt-4-0314"
    assert len(meta["games"]) == 2
    breakout = next(s for s in gullible_log.samples or [] if str(s.id).startswith("breakout-"))
    assert breakout.scores["probe_judge"].metadata["neutralised"]["model"]["total"] >= 4  # type: ignore[index]


def test_audit_lists_attack_success_per_judge_and_leaderboard_ignores_probes(
    probe_logs, capsys
) -> None:  # type: ignore[no-untyped-def]
    root, _, _ = probe_logs
    assert main(["audit", str(root)]) == 0
    out = capsys.readouterr().out
    lines = {tuple(line.split()) for line in out.splitlines()}
    for probe in ORIGINAL:
        assert ("mockllm/gullible", probe, "100.0%", "-") in lines
    for probe in (p for p in PROBES if not p.endswith(RAW)):
        assert any(line[:2] == ("mockllm/robust", probe) for line in lines)
    assert read_games([root]).games == []


def test_unknown_probe_is_rejected() -> None:
    with pytest.raises(
        ValueError, match="nope unknown; expected among null, injection, breakout, verbose"
    ):
        probe_names("null,nope")


def test_readme_command_runs_from_any_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["arenahard_probes", "--model-role", "judge=mockllm/model", "-T", f"data_dir={V01}",
            "-T", "prompts=2", "-T", "probes=null,breakout"]  # fmt: skip
    log = inspect_eval_cli(args, cwd=tmp_path, log_dir=tmp_path / "logs")
    assert log.status == "success"
    assert len(log.samples or []) == 4 and log.eval.metadata["probes"] == ["null", "breakout"]  # type: ignore[index]
    # mockllm's default reply carries no verdict: every game unparsed, so no rate, shown as "-"
    assert main(["audit", str(tmp_path / "logs")]) == 0
    lines = {tuple(line.split()) for line in capsys.readouterr().out.splitlines()}
    assert ("mockllm/model", "null", "-", "-") in lines
    assert ("mockllm/model", "breakout", "-", "-") in lines
