"""Questions and stored answers in arena-hard-auto's folder layout, and curated prompt files.

A data folder holds ``question.jsonl`` and ``model_answer/<model>.jsonl`` in either of the two
schemas arena-hard-auto has used:

* legacy (2024): questions ``{question_id, category, cluster, turns[{content}]}``, answers
  ``{question_id, model_id, choices[{turns[{content}]}], conv_metadata}``;
* 2025: questions ``{uid, category, subcategory?, cluster?, prompt}``, answers
  ``{uid, model, messages[{role, content}], metadata}`` where assistant content may be
  ``{"answer": ...}``.

Everything is normalised to ``Question`` and ``StoredAnswer``. Errors name the file,
the line and the field.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_arenahard.errors import MissingFileError, UserError
from inspect_arenahard.evaluate.version_config import version_config
from inspect_arenahard.files.arena_layout import ArenaHardFolder, release_files
from inspect_arenahard.files.jsonl import jsonl_file, read_jsonl
from inspect_arenahard.judging.style_features import StyleFeatures
from inspect_arenahard.judging.templates import config

LAUNCH_DIR = Path.cwd()
"""The directory the command was started in. Inspect loads this plugin (and so this module, through
the task) at start-up, before it changes into a task file's folder, so relative task arguments
resolve against what the user typed."""


@dataclass(frozen=True)
class Question:
    """One benchmark prompt; ``extra`` keeps the source record's other fields."""

    id: str
    prompt: str
    category: str | None = None
    cluster: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredAnswer:
    """A model's answer read from an answer file, with its style features when stored."""

    question_id: str
    model: str
    text: str
    style: StyleFeatures | None = None


def user_path(path: str | Path) -> Path:
    """A path as the user typed it: relative paths are relative to the directory the command was
    started in, even when Inspect has changed into a task file's folder to load it (a program
    that changed directory itself finds paths relative to its new one when they exist only there)."""
    path = Path(path).expanduser()
    if path.is_absolute():
        return path
    launched, here = LAUNCH_DIR / path, Path.cwd() / path
    return here if here.exists() and not launched.exists() else launched


def _field(record: dict[str, Any], names: tuple[str, ...], where: str) -> Any:
    for name in names:
        if name in record and record[name] is not None:
            return record[name]
    raise UserError(f"{where}: missing field {' or '.join(repr(n) for n in names)}")


def _question(record: dict[str, Any], where: str) -> Question:
    qid = str(_field(record, ("uid", "question_id", "id"), where))
    if "prompt" in record:
        prompt = record["prompt"]
    elif "turns" in record:
        turns = record["turns"]
        if not isinstance(turns, list) or not turns or "content" not in turns[0]:
            raise UserError(f"{where}: field 'turns' must be a non-empty list of {{content}}")
        if len(turns) > 1:
            raise UserError(f"{where}: multi-turn questions ({len(turns)} turns) are not supported")
        prompt = turns[0]["content"]
    else:
        raise UserError(f"{where}: missing field 'prompt' or 'turns'")
    if not isinstance(prompt, str) or not prompt.strip():
        raise UserError(f"{where}: field 'prompt' must be a non-empty string")
    known = {"uid", "question_id", "id", "prompt", "turns", "category", "cluster"}
    return Question(
        id=qid,
        prompt=prompt,
        category=record.get("category"),
        cluster=record.get("cluster"),
        extra={k: v for k, v in record.items() if k not in known},
    )


def load_questions(path: str | Path) -> list[Question]:
    """Questions from a ``question.jsonl`` (either schema) or a curated/plain prompt JSONL.

    Plain files need ``id`` (or ``uid``/``question_id``) and ``prompt``; ``category``,
    ``cluster`` and any other fields (``topic``, ``score``, ``reference`` …) are kept. A gzip
    copy (``question.jsonl.gz``) is read when only it exists.
    """
    path = jsonl_file(Path(path))
    if not path.is_file():
        raise MissingFileError(
            f"question file not found: {path}"
            + ("" if path.parent.is_dir() else f" (no folder {path.parent})")
        )
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for lineno, record in read_jsonl(path):
        question = _question(record, f"{path}:{lineno}")
        if question.id in seen:
            raise UserError(
                f"{path}:{lineno}: duplicate id {question.id!r} (first on line {seen[question.id]})"
            )
        seen[question.id] = lineno
        questions.append(question)
    if not questions:
        raise UserError(f"{path}: no questions")
    return questions


def _answer_text(record: dict[str, Any], where: str) -> str:
    if "choices" in record:
        try:
            turn = record["choices"][0]["turns"][0]  # single-turn benchmarks: the first turn
        except (KeyError, IndexError, TypeError):
            raise UserError(f"{where}: field 'choices[0].turns[0]' missing") from None
        content = (
            turn["content"] if isinstance(turn, dict) else turn
        )  # FastChat references: plain strings
    elif "messages" in record:
        assistant = [
            m for m in record["messages"] if isinstance(m, dict) and m.get("role") == "assistant"
        ]
        if not assistant:
            raise UserError(f"{where}: field 'messages' has no assistant message")
        content = assistant[-1].get("content")
        if isinstance(content, dict):
            content = content.get("answer")
    elif isinstance(record.get("answer", record.get("reference")), str):
        content = record.get("answer", record.get("reference"))
    else:
        raise UserError(f"{where}: missing field 'choices', 'messages', 'answer' or 'reference'")
    if not isinstance(content, str):
        raise UserError(f"{where}: answer content is not a string")
    return content


def load_answers(path: str | Path) -> dict[str, StoredAnswer]:
    """Stored answers of one model keyed by question id: either arena-hard schema, FastChat
    answers/references (``choices[0].turns[0]`` as a string), or plain ``{id, answer|reference}``;
    a gzip copy is read when only it exists."""
    path = jsonl_file(Path(path))
    if not path.is_file():
        raise MissingFileError(f"answer file not found: {path}")
    answers: dict[str, StoredAnswer] = {}
    for lineno, record in read_jsonl(path):
        where = f"{path}:{lineno}"
        qid = str(_field(record, ("uid", "question_id", "id"), where))
        model = str(record.get("model") or record.get("model_id") or path.stem)
        style = record.get("conv_metadata") or record.get("metadata") or None
        answers[qid] = StoredAnswer(qid, model, _answer_text(record, where), style)
    return answers


def answer_file(data_dir: Path, model: str) -> Path:
    """``model_answer/<model>.jsonl``; the error lists the models that are available."""
    folder = ArenaHardFolder(data_dir)
    path = folder.answer_file(model)
    if not path.is_file():
        available = list(folder.answers_by_model())
        raise MissingFileError(
            f"no stored answers for baseline '{model}' in {folder.answers}"
            f" (available: {', '.join(available) or 'none'})"
        )
    return path


def hub_data_dir(version: str, models: list[str]) -> Path:
    """Download the official release of ``version`` (questions + the given models' answers).

    The raw JSONL files are fetched with the hub client that ``datasets`` itself uses rather
    than ``datasets.load_dataset``: the repo is an archive of hundreds of answer and judgment
    files (loaded by id, ``datasets`` tries to combine them), and reading the fetched files with
    the loaders used for a local ``data_dir`` keeps one path for both schemas and their errors.
    """
    instead = "Pass -T data_dir=<folder> to use a local copy."
    return hub_download(version, release_files(models), instead)


def _hub_release(version: str, instead: str) -> tuple[dict[str, Any], str, str]:
    """(hub settings, the release's folder in the repo, revision) for ``version``."""
    hub = config("hub")
    folder = version_config(version).hub_folder
    if folder is None:
        raise UserError(f"version {version} has no release on the hub. {instead}")
    return hub, folder, os.environ.get("ARENAHARD_HUB_REVISION", hub["revision"])


def _hub_error(ex: Exception, version: str, where: str, instead: str) -> UserError:
    """One line: offline, or why the hub refused, and what to do instead."""
    from huggingface_hub.constants import HF_HUB_OFFLINE
    from huggingface_hub.errors import LocalEntryNotFoundError

    reason = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
    if HF_HUB_OFFLINE or isinstance(ex, (LocalEntryNotFoundError, ConnectionError)):
        return UserError(
            f"offline: Arena-Hard {version} cannot be downloaded from the Hugging Face hub ({where}). {instead}"
        )
    return UserError(
        f"could not download Arena-Hard {version} from the Hugging Face hub ({where}: {reason}). {instead}"
    )


def hub_download(version: str, files: list[str], instead: str) -> Path:
    """The folder of ``version``'s official release on the Hugging Face hub, holding ``files``
    (paths inside the release folder; globs allowed) at the revision pinned in
    ``scorers/configs/hub.yaml`` (``ARENAHARD_HUB_REVISION`` overrides). Files are cached by
    ``huggingface_hub``, so a second call reads the cache. ``instead`` ends the error line: what
    to use when the hub cannot be reached."""
    from huggingface_hub import snapshot_download

    hub, folder, revision = _hub_release(version, instead)
    try:
        root = snapshot_download(
            repo_id=hub["repo_id"],
            repo_type=hub["repo_type"],
            revision=revision,
            allow_patterns=[f"{folder}/{f}" for f in files],
        )
    except Exception as ex:  # network, auth or missing revision: say what to do instead
        raise _hub_error(ex, version, f"{hub['repo_id']}@{revision}", instead) from ex
    return Path(root) / folder


def hub_listing(version: str, under: str, instead: str) -> list[str]:
    """Names of the entries right below ``under`` (a folder in ``version``'s release) on the hub
    at the pinned revision: for instance the judges of ``model_judgment``."""
    from huggingface_hub import list_repo_files

    hub, folder, revision = _hub_release(version, instead)
    try:
        paths = list_repo_files(hub["repo_id"], repo_type=hub["repo_type"], revision=revision)
    except Exception as ex:
        raise _hub_error(ex, version, f"{hub['repo_id']}@{revision}", instead) from ex
    prefix = f"{folder}/{under}/"
    return sorted({p[len(prefix) :].split("/")[0] for p in paths if p.startswith(prefix)})
