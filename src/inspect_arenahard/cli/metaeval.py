"""``arenahard metaeval``: judge meta-evaluation tables from ``scaleeval`` logs, and the
human-review queue for debates that ended without consensus."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from inspect_arenahard.cli.options import output_file
from inspect_arenahard.cli.tables import print_records
from inspect_arenahard.errors import UserError
from inspect_arenahard.files.outputs import write_json

EXAMPLES = """examples:
  arenahard metaeval logs/
  arenahard metaeval logs/ --human-review review.csv      # export debates without consensus
  arenahard metaeval logs/ --apply-review review.csv      # import the filled-in decisions
  arenahard metaeval logs/ --apply-review review.csv --json metaeval.json
"""

TITLES = {
    "debate_by_scenario": "Agreement with debate labels, by scenario (ScaleEval Table 2)",
    "debate_by_criterion": "Agreement with debate labels, by criterion (ScaleEval Table 4)",
    "debate_by_variant": "Evaluator agreement with debate labels, by criteria variant (ScaleEval Table 5)",
    "gold_by_source": "Agreement with human gold labels, by data source (debate vs baselines)",
    "gold_overall": "Agreement with human gold labels, all items",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "metaeval",
        help="judge meta-evaluation tables from scaleeval logs; human-review queue",
        description="Agreement of single judges with ScaleEval debate labels (example level: "
        "share of items with the same label; system level: whether the most common labels "
        "match) per scenario, criterion and criteria variant, and of the debate and its "
        "baselines (single judges, self-consistency, multi-judge majority) with human gold "
        "labels. Debates without consensus wait for a human decision: export them with "
        "--human-review, fill the 'decision' column (1, 2 or 0 for the submissions as shown), "
        "and import with --apply-review to recompute every table.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "logs", nargs="+", metavar="LOG", help="Inspect log files or folders of scaleeval runs"
    )
    parser.add_argument(
        "--human-review",
        metavar="FILE",
        help="write the items still without a reference label (.csv or .jsonl)",
    )
    parser.add_argument(
        "--apply-review", metavar="FILE", help="read human decisions from a filled-in review file"
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="write coverage and all tables as JSON"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from inspect_arenahard.scaleeval import review  # lazy: reading logs pulls in Inspect
    from inspect_arenahard.scaleeval.item_records import read_records
    from inspect_arenahard.scaleeval.judge_agreement import report

    found = read_records(args.logs)
    for note in found.notes():
        print(note, file=sys.stderr)
    if not found.records:
        raise UserError("no scaleeval item records found in the given logs")
    decisions: dict[str, str] = {}
    if args.apply_review:
        read = review.read_decisions(args.apply_review)
        decisions = read.decisions
        stray = review.unmatched(decisions, found.records)
        if stray:
            raise UserError(
                f"{args.apply_review}: {len(stray)} decisions name no item in these logs: {', '.join(stray[:5])}"
            )
        print(
            f"applied {len(decisions)} human decisions from {args.apply_review} ({read.pending} rows still blank)"
        )
    result = report(found.records, decisions)
    coverage = result["coverage"]
    print(
        f"{coverage['items']} items from {len(found.logs)} logs: {coverage['consensus']} debate consensus, "
        f"{coverage['human_decided']} human decisions, {coverage['pending_review']} pending review "
        f"(left out of the debate-label tables); {coverage['with_gold']} with gold labels, "
        f"{coverage['with_evaluator']} with an evaluator"
    )
    columns = [(h, h) for h in ("group", "judge", "n", "unparsed", "example", "system")]
    for name, rows in result["tables"].items():
        if rows:
            print_records(TITLES[name], columns, rows)
    if args.human_review:
        rows = review.queue(found.records, decisions)
        review.write_queue(args.human_review, rows)
        print(f"\nwrote {len(rows)} items for human review to {args.human_review}")
    if args.json:
        write_json(args.json, result)
    return 0
