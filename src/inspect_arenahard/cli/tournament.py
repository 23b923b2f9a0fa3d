"""``arenahard tournament``: Auto-Arena Swiss tournaments of peer battles (run, add, report),
and the export of examiner questions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from inspect_arenahard.cli.options import add_cost_arguments, output_file
from inspect_arenahard.files.outputs import write_json, wrote

EXAMPLES = """examples:
  inspect eval autoarena_questions -T domains=all -T per_domain=5 --model openai/gpt-4.1
  arenahard tournament questions logs/<examiner-log>.eval -o questions.jsonl
  arenahard tournament run tournament.yaml             # resumes when run again
  arenahard tournament add tournament/ --model openai/gpt-4.1-mini --prior 80.1
  arenahard tournament report tournament/ --reference arena.csv --name-map names.json
  arenahard leaderboard tournament/logs/ --method bt --baseline <any player>
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="Auto-Arena: Swiss tournaments of peer battles judged by a committee",
        description="Swiss tournaments of Auto-Arena peer battles (autoarena_battle): ⌈log2 n⌉ "
        "rounds pairing models of similar rating, judged by the current top models, ratings "
        "refitted (Bradley–Terry, shown as Elo) after every round. State, logs and the ratings "
        "history live in the tournament folder; a re-run resumes after a crash.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)

    run = commands.add_parser(
        "run", help="start or resume a tournament from its config (or folder)"
    )
    run.add_argument(
        "config",
        type=Path,
        metavar="CONFIG",
        help="tournament.yaml, or a tournament folder to resume",
    )
    _eval_options(run)
    run.set_defaults(func=_run)

    add = commands.add_parser(
        "add", help="add a model with ⌈log2 n⌉ battles against its nearest-rated models"
    )
    add.add_argument("folder", type=Path, metavar="FOLDER")
    add.add_argument("--model", required=True, help="the model to add (an Inspect model name)")
    add.add_argument(
        "--prior",
        type=float,
        help="its prior score on the config's prior scale (default: the config's prior, else mid-table)",
    )
    _eval_options(add)
    add.set_defaults(func=_add)

    report = commands.add_parser(
        "report", help="ranking with intervals, history, agreement and reference correlation"
    )
    report.add_argument("folder", type=Path, metavar="FOLDER")
    report.add_argument(
        "--reference",
        type=Path,
        metavar="FILE",
        help="reference ranking (leaderboard CSV or bootstrap JSONL) for Spearman/Kendall",
    )
    report.add_argument(
        "--name-map",
        type=Path,
        metavar="JSON",
        help="model-name aliases between the tournament and the reference",
    )
    report.add_argument("--json", type=output_file, metavar="FILE", help="write the report as JSON")
    add_cost_arguments(report)
    report.set_defaults(func=_report)

    questions = commands.add_parser(
        "questions", help="export an autoarena_questions log as battle questions (JSONL)"
    )
    questions.add_argument("log", type=Path, metavar="LOG")
    questions.add_argument("-o", "--output", type=output_file, required=True, metavar="FILE")
    questions.set_defaults(func=_questions)


def _eval_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--display",
        default=None,
        help="Inspect display (full, rich, plain, log, none; default none)",
    )
    parser.add_argument(
        "--max-connections", type=int, default=None, help="concurrent model connections per model"
    )


def _eval_args(args: argparse.Namespace) -> dict[str, Any]:
    return {
        k: v
        for k, v in (("display", args.display), ("max_connections", args.max_connections))
        if v is not None
    }


def _guarded(tournament: Any, action: Callable[[], Any]) -> int:
    """Run ``action``; failed pairings end with exit code 1 and a resume hint, not a traceback."""
    from inspect_arenahard.arena.standings import format_report, tournament_report
    from inspect_arenahard.arena.tournament import TournamentError

    try:
        action()
    except TournamentError as ex:
        print(f"arenahard tournament: {ex}", file=sys.stderr)
        return 1
    print(format_report(tournament_report(tournament)))
    return 0


def _run(args: argparse.Namespace) -> int:
    from inspect_arenahard.arena.tournament import Tournament

    if args.config.is_dir():
        tournament = Tournament.open(args.config, **_eval_args(args))
    else:
        tournament = Tournament.create(args.config, **_eval_args(args))
    return _guarded(tournament, tournament.run)


def _add(args: argparse.Namespace) -> int:
    from inspect_arenahard.arena.tournament import Tournament

    tournament = Tournament.open(args.folder, **_eval_args(args))
    return _guarded(tournament, lambda: tournament.add(args.model, args.prior))


def _report(args: argparse.Namespace) -> int:
    from inspect_arenahard.arena.standings import format_report, tournament_report
    from inspect_arenahard.arena.tournament import Tournament

    report = tournament_report(Tournament.open(args.folder), args.reference, args.name_map)
    print(format_report(report))
    record = report.record()
    if args.cost:
        from inspect_arenahard.arena.tournament import LOGS
        from inspect_arenahard.report.costs import format_costs, log_costs, read_prices

        costs = log_costs([args.folder / LOGS], read_prices(args.prices) if args.prices else None)
        print("\n" + format_costs(costs))
        record["cost"] = costs.summary()
    if args.json:
        write_json(args.json, record)
    return 0


def _questions(args: argparse.Namespace) -> int:
    from inspect_arenahard.arena.questions import questions_from_log, write_battle_questions

    found = questions_from_log(args.log)
    for note in found.notes():
        print(note, file=sys.stderr)
    wrote(args.output, f"{write_battle_questions(args.output, found.questions)} questions")
    return 0
