"""Settings as dataclasses, filled from command-line flags or a YAML mapping, type-checked.

Each curation step, the tournament config and the version config declare their settings once (a
dataclass whose fields carry defaults and help); CLI flags and config keys are derived from it,
so the two cannot drift, and a wrong key or type is one error naming the file and key.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import Any, ClassVar, Protocol, TypeVar


class DataclassInstance(Protocol):
    """What every dataclass has: the bound of the option types (``dataclasses.fields`` needs it)."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


T = TypeVar("T", bound=DataclassInstance)


def _base_type(hint: Any) -> tuple[type, bool]:
    """(scalar type, is a list) of a field's type hint, ignoring ``| None``; a ``Literal`` of
    strings is ``str`` (its values are the choices: ``_choices``)."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and args:
        hint = args[0]
    if typing.get_origin(hint) is list:
        return typing.get_args(hint)[0], True
    if typing.get_origin(hint) is typing.Literal:
        return str, False
    return hint, False


def _choices(hint: Any) -> tuple[Any, ...] | None:
    """The values of a (possibly optional) ``Literal`` field, else None."""
    for arg in (hint, *typing.get_args(hint)):
        if typing.get_origin(arg) is typing.Literal:
            return typing.get_args(arg)
    return None


def add_options(
    parser: argparse.ArgumentParser,
    cls: type[DataclassInstance],
    only: tuple[str, ...] | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """One ``--flag`` per field of ``cls`` (defaults left to the dataclass); ``only``: just these
    fields, for a step that uses a few options of a class shared with another step; ``skip``:
    fields whose flag the command declares itself (e.g. ``--ci``, shared by every command)."""
    hints = typing.get_type_hints(cls)
    group = parser.add_argument_group(cls.__name__.removesuffix("Options").lower() + " options")
    for f in dataclasses.fields(cls):
        if (only is not None and f.name not in only) or f.name in skip:
            continue
        base, many = _base_type(hints[f.name])
        flag = "--" + f.name.replace("_", "-")
        default: Any = None
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        help_text = f"{f.metadata.get('help', '')} (default: {default})"
        if base is bool:
            group.add_argument(
                flag,
                dest=f.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=help_text,
            )
        elif many and f.metadata.get("repeat"):  # --judge a --judge b
            group.add_argument(
                flag, dest=f.name, action="append", metavar=f.metadata.get("metavar"), default=None,
                help=help_text,
            )  # fmt: skip
        else:
            group.add_argument(
                flag,
                dest=f.name,
                type=base,
                nargs="+" if many else None,
                choices=_choices(hints[f.name]),
                metavar=f.metadata.get("metavar"),
                default=None,
                help=help_text,
            )


def from_args(cls: type[T], args: argparse.Namespace) -> T:
    """An options object from parsed flags (unset flags keep the dataclass defaults)."""
    given = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(cls)
        if getattr(args, f.name, None) is not None
    }
    return cls(**given)


def from_mapping(cls: type[T], mapping: dict[str, Any] | None, where: str) -> T:
    """An options object from a config section; unknown keys and wrong types are errors naming ``where``."""
    mapping = mapping or {}
    if not isinstance(mapping, dict):
        raise ValueError(f"{where}: expected a mapping")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(mapping) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {}
    for name, value in mapping.items():
        base, many = _base_type(hints[name])
        if value is None:
            values[name] = None
            continue
        items = value if many else [value]
        if many and not isinstance(value, list):
            raise ValueError(f"{where}.{name}: expected a list")
        choices = _choices(hints[name])
        for item in items:
            if choices is not None and item not in choices:
                raise ValueError(
                    f"{where}.{name}: {item!r} is not one of {', '.join(map(str, choices))}"
                )
            ok = isinstance(item, base) and not (base in (int, float) and isinstance(item, bool))
            if not ok and not (
                base is float and isinstance(item, int) and not isinstance(item, bool)
            ):
                raise ValueError(f"{where}.{name}: expected {base.__name__}, got {item!r}")
        values[name] = value
    return cls(**values)
