"""Small arenahard runs for the log-reading tests: a scripted candidate whose answer depends on
the prompt (so the audit sees an honest model), and a scripted judge whose verdicts can change
between runs (``JudgeScript``), on the v0.1 data beside the repository."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog

from inspect_arenahard import arenahard
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared


def v01() -> str:
    return str(shared("arena-hard-v0.1"))


def prompt_ids(n: int) -> list[str]:
    """The first ``n`` prompt ids of v0.1, in dataset order."""
    return [str(s.id) for s in list(arenahard(data_dir=v01()).dataset)[:n]]


@dataclass
class JudgeScript:
    """The judge's verdict on the candidate: ``wins`` (model better), ``strong`` (>>) or
    ``unparsed`` (no label); per prompt in ``by_prompt``, else ``default``."""

    default: str = "wins"
    by_prompt: dict[str, str] = field(default_factory=dict)

    def reply(self, messages: Any) -> str:
        question, answer_a, _ = judged(messages)
        mood = next((v for k, v in self.by_prompt.items() if question.startswith(k)), self.default)
        if mood == "unparsed":
            return "I cannot decide."
        model_is_a = answer_a.startswith("Answer:")
        good = mood in ("wins", "strong_wins")
        strong = mood.startswith("strong")
        op = ">>" if strong else ">"
        return f"[[A{op}B]]" if model_is_a == good else f"[[B{op}A]]"


def run(
    log_dir: Path,
    script: JudgeScript,
    model: str = "candidate",
    sample_id: list[str] | None = None,
    limit: int | None = None,
    **task_args: Any,
) -> EvalLog:
    """One arenahard run of the scripted ``model`` judged by ``mockllm/judge`` (no cache)."""
    candidate = scripted_model(model, lambda m: "Answer: " + m[-1].text[:60])
    judge = scripted_model("judge", script.reply)
    [log] = eval(
        arenahard(data_dir=v01(), cache=False, **task_args),
        model=candidate,
        model_roles={"judge": judge},
        sample_id=sample_id,
        limit=limit,
        log_dir=str(log_dir),
        display="none",
    )
    return log


def damage_member(path: str | Path, member: str) -> None:
    """Overwrite bytes inside one member's compressed data, leaving the zip index intact."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    with open(path, "r+b") as handle:
        handle.seek(info.header_offset + 26)
        name_len = int.from_bytes(handle.read(2), "little")
        extra_len = int.from_bytes(handle.read(2), "little")
        start = info.header_offset + 30 + name_len + extra_len
        handle.seek(start + info.compress_size // 3)
        handle.write(b"\xff" * min(16, max(1, info.compress_size // 3)))
