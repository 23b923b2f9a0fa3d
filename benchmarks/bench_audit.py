"""``arenahard audit`` on judge logs: 16 logs × 500 samples (the 16 real v0.1 answer sets, one log
each, built as in ``bench_logs.py``), split into reading the samples (raw JSON from the ``.eval``
archives) and the checks (:mod:`inspect_arenahard.report.audit_checks`), against the slow reference for
the reading part (Inspect's typed ``read_eval_log``).

    python benchmarks/bench_audit.py [--logs 16] [--keep DIR]

This is also the extra cost of the flags column of ``arenahard leaderboard`` (``--no-audit``
skips it). The logs are written by the importer, so each score carries its audit record and the
checks run on the records (sketches, recorded ranks). Prints wall times per 500-answer model and
the flags found (none expected).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from inspect_arenahard.report.audit_inputs import audit_answers_of, read_model_samples

sys.path.insert(0, str(Path(__file__).parent))
from bench_logs import full_read_seconds, log_folder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=int, default=16)
    parser.add_argument("--keep", type=Path, default=None, help="reuse/keep logs in this folder")
    args = parser.parse_args()
    folder = log_folder(args.keep, args.logs, "bench-audit-")

    t = time.perf_counter()
    by_model, _ = read_model_samples([folder])
    reading = time.perf_counter() - t
    t = time.perf_counter()
    audits = [audit_answers_of(model, samples) for model, samples in sorted(by_model.items())]
    checks = time.perf_counter() - t
    n = len(audits)
    print(f"audit of {n} models × {sum(a.n for a in audits) // max(n, 1)} samples: reading {reading:.1f}s, "
          f"checks {checks:.1f}s → {(reading + checks) / n:.2f}s per model")  # fmt: skip
    print("flags:", {a.model: a.flags for a in audits if a.flags} or "none")

    per_log = full_read_seconds(folder, 3)
    print(f"reference reading (full read_eval_log): {per_log:.2f}s per log vs ours {reading / n:.2f}s "
          f"({per_log * n / reading:.1f}× slower)")  # fmt: skip
    if args.keep is None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
