"""Griffe extension: an options dataclass's fields documented from their ``help`` metadata.

Typed options (``RankingOptions``, the curation steps' options) keep each field's meaning in
``field(metadata={"help": ...})``, where the CLI flags and config keys are generated from it.
This gives every such field without a docstring that help text as its docstring, so the API
reference lists all the fields with the words ``--help`` prints, written once.
"""

from __future__ import annotations

import ast
from typing import Any

from griffe import Attribute, Docstring, Extension


def _help(node: Any) -> str | None:
    """The ``help`` string of ``name: T = field(..., metadata={"help": "..."})``."""
    value = getattr(node, "value", None)
    if not isinstance(node, ast.AnnAssign) or not isinstance(value, ast.Call):
        return None
    for keyword in value.keywords:
        if keyword.arg == "metadata" and isinstance(keyword.value, ast.Dict):
            for key, item in zip(keyword.value.keys, keyword.value.values):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "help"
                    and isinstance(item, ast.Constant)
                    and isinstance(item.value, str)
                ):
                    return item.value
    return None


class FieldHelp(Extension):
    """Sets a field's docstring from its ``help`` metadata when it has none."""

    def on_attribute_instance(self, *, node: Any, attr: Attribute, **_: Any) -> None:
        """Called by griffe for each attribute it reads from the source."""
        text = _help(node)
        if text and attr.docstring is None:
            attr.docstring = Docstring(text[:1].upper() + text[1:] + ".", parent=attr)
