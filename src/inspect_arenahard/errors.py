"""Mistakes a user can make, reported as one line that names the culprit — never a traceback.

``UserError`` is the one type for a bad argument, file, line or field. The ``arenahard``
command prints it as ``arenahard COMMAND: error: ...`` and exits 2; a task raises it while it is
being built (before any model call) and ``task_errors`` hands it to Inspect as a
prerequisite error, which ``inspect eval`` prints as one line. Anything else is a bug and keeps
its traceback. Pure Python: the statistics modules import it without pulling in Inspect.
"""

from __future__ import annotations

import difflib
import functools
import math
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TypeVar

PACKAGE_DIR = Path(__file__).resolve().parent


class UserError(ValueError):
    """Bad input from the user: the message names the file, line, field or argument and says
    what to do instead."""


class MissingFileError(UserError, FileNotFoundError):
    """A file or folder the user named does not exist (still a ``FileNotFoundError``)."""


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a choice is close to ``value``, else ``''``."""
    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` when it is one of ``choices``; else an error listing them, with a suggestion."""
    if value in choices:
        return str(value)
    raise UserError(
        f"{name}={value!r} is not one of {', '.join(choices)}{did_you_mean(value, choices)}"
    )


def check_number(
    name: str,
    value: Any,
    *,
    integer: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    above: float | None = None,
) -> Any:
    """``value`` as an int/float within the bounds; strings like ``"3"`` (from ``-T``) are accepted."""
    kind = "an integer" if integer else "a number"
    number: float | int
    if isinstance(value, bool):
        raise UserError(f"{name}={value!r} must be {kind}")
    try:
        number = float(value) if not integer else _as_int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name}={value!r} must be {kind}") from None
    if not math.isfinite(number):
        raise UserError(f"{name}={value!r} must be a finite number")
    if minimum is not None and number < minimum:
        raise UserError(f"{name}={value!r} must be at least {minimum:g}")
    if maximum is not None and number > maximum:
        raise UserError(f"{name}={value!r} must be at most {maximum:g}")
    if above is not None and number <= above:
        raise UserError(f"{name}={value!r} must be greater than {above:g}")
    return number


def _as_int(value: Any) -> int:
    number = float(value)
    if not number.is_integer():
        raise ValueError
    return int(number)


def check_bool(name: str, value: Any) -> bool:
    """``True``/``False`` (also ``"true"``, ``"no"``, ``1``…): ``-T cache=nope`` is not truthy."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise UserError(f"{name}={value!r} must be true or false")


def confidence_level(value: str | float) -> float:
    """A confidence level given as a fraction (0.95) or a percentage (95): both mean 95%.

    The one convention of every command that takes ``--ci``. Levels under 50% are refused: a
    value such as ``1.5`` is a slip (it would read as a 1.5% interval of almost no width).
    """
    level = check_number("--ci", value)
    if 1 < level < 100:
        level /= 100
    if not 0.5 <= level < 1:
        raise UserError(
            f"--ci={value!r} must be a confidence level from 0.5 to below 1 (or 50 to below 100 "
            "percent), such as 0.95 or 95"
        )
    return level


def raised_by_this_package(ex: BaseException) -> bool:
    """Whether ``ex`` was raised by a ``raise`` statement of this package (a message written for
    the user) rather than deep inside a library (numpy, zipfile …: a bug worth a traceback)."""
    frames = traceback.extract_tb(ex.__traceback__)
    return bool(frames) and Path(frames[-1].filename).resolve().is_relative_to(PACKAGE_DIR)


def is_user_error(ex: BaseException) -> bool:
    """``UserError``, or a ``ValueError``/``OSError`` about a user's path or input that this
    package raised itself, or a file the user named that cannot be opened."""
    if isinstance(ex, UserError):
        return True
    if isinstance(ex, (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)):
        return True
    return isinstance(ex, ValueError) and raised_by_this_package(ex)


F = TypeVar("F", bound=Callable[..., Any])


def task_errors(task_fn: F) -> F:
    """Decorate a task function (under ``@task``) so user errors raised while the task is built
    reach Inspect as a prerequisite error: ``inspect eval`` prints one line, no traceback."""

    @functools.wraps(task_fn)
    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            return task_fn(*args, **kwargs)
        except Exception as ex:
            if not is_user_error(ex):
                raise
            raise prerequisite_error(f"{task_fn.__name__}: {ex}") from None

    return build  # type: ignore[return-value]


@functools.cache
def _task_error_type() -> type[UserError]:
    from inspect_ai._util.error import (  # inspect-evals-lint: ignore[private_api_imports] -- Inspect exports no public name for the one-line error its CLI prints
        PrerequisiteError,
    )

    class TaskError(PrerequisiteError, UserError):
        """A ``UserError`` that Inspect's command line prints as one line."""

    return TaskError


def prerequisite_error(message: str) -> UserError:
    """A user error that ``inspect eval`` prints as one line (still a ``ValueError``)."""
    from rich.markup import escape

    error = _task_error_type()(
        escape(message)
    )  # Inspect prints it through rich: keep [[A>B]] literal
    error.args = (message,)
    return error
