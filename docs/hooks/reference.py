"""MkDocs hook: the CLI and Python API reference pages, generated from the code at build time.

The CLI page walks the parser that ``arenahard`` itself builds (``inspect_arenahard.cli``), so
every command, argument, default and help text is the one the program has. The API page lists
every public module found under ``src/inspect_arenahard`` for mkdocstrings to render from the
docstrings. Neither names a module by hand, so moving or adding modules cannot leave them stale.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

SRC = Path(__file__).resolve().parents[2] / "src"
CLI_PAGE = "reference/cli.md"
API_PAGE = "reference/api.md"


# ------------------------------------------------------------------------ CLI


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def _summaries(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each subcommand's one-line help, as ``arenahard --help`` lists it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _argument(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.nargs != 0:
            names += f" `{action.metavar or action.dest.upper()}`"
        return names
    return f"`{action.metavar or action.dest}`"


def _default(action: argparse.Action) -> str:
    if (
        action.option_strings == []
        or action.nargs == 0
        or action.default in (None, argparse.SUPPRESS)
    ):
        return ""
    return f"`{action.default}`"


def _command_markdown(
    path: str, parser: argparse.ArgumentParser, summary: str, level: int
) -> list[str]:
    lines = [f"{'#' * level} `{path}`", ""]
    if summary or parser.description:
        lines += [_cell(parser.description or summary), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help != argparse.SUPPRESS
            and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        ]
        if not actions:
            continue
        lines += [f"**{group.title}**", "", "| argument | default | meaning |", "|---|---|---|"]
        for a in actions:
            choices = f" (one of {', '.join(map(str, a.choices))})" if a.choices else ""
            help_text = (
                (a.help or "") % {"default": a.default, "prog": parser.prog} if a.help else ""
            )
            lines.append(
                f"| {_argument(a)} | {_cell(_default(a))} | {_cell(help_text + choices)} |"
            )
        lines.append("")
    summaries = _summaries(parser)
    for name, sub in _subcommands(parser):
        lines += _command_markdown(
            f"{path} {name}", sub, summaries.get(name, ""), min(level + 1, 4)
        )
    return lines


def cli_markdown() -> str:
    """The reference of every ``arenahard`` command, from the parser the program builds."""
    os.environ["COLUMNS"] = "100"  # argparse wraps usage lines to the terminal: keep pages stable
    from inspect_arenahard.cli import build_parser

    parser = build_parser()
    lines = [
        "# CLI reference",
        "",
        "Generated when the site is built, from the parser the `arenahard` command builds "
        "(`inspect_arenahard.cli.build_parser`): what is here is what the program accepts. "
        "Evaluations run with Inspect's own command, `inspect eval` (see [Evaluate](../evaluate.md)).",
        "",
    ]
    summaries = _summaries(parser)
    lines += ["| command | what it does |", "|---|---|"]
    lines += [
        f"| [`arenahard {n}`](#arenahard-{n}) | {_cell(summaries.get(n, ''))} |"
        for n, _ in _subcommands(parser)
    ]
    lines.append("")
    for name, sub in _subcommands(parser):
        lines += _command_markdown(f"arenahard {name}", sub, summaries.get(name, ""), 2)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ API


def public_modules() -> list[str]:
    """Every module and package under ``src/inspect_arenahard`` without a private name part."""
    import inspect_arenahard

    names = ["inspect_arenahard"]
    for info in pkgutil.walk_packages(inspect_arenahard.__path__, "inspect_arenahard."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def api_markdown() -> str:
    """One section per public module, rendered by mkdocstrings from its docstrings."""
    lines = [
        "# Python API reference",
        "",
        "Generated when the site is built from the docstrings of every public module under "
        "`src/inspect_arenahard`. The supported entry points are the package root's exports "
        "(`from inspect_arenahard import ...`) and `inspect_arenahard.report.dataframes`; the rest is "
        "documented so the code can be read, and may change between releases.",
        "",
    ]
    for name in public_modules():
        lines += [f"::: {name}", "    options:", "      show_submodules: false", ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- MkDocs hooks


def on_files(files: Files, config: Any) -> Files:
    """Add the two generated pages to the site (they exist in no folder)."""
    for uri, content in ((CLI_PAGE, cli_markdown()), (API_PAGE, api_markdown())):
        files.append(File.generated(config, uri, content=content))
    return files
