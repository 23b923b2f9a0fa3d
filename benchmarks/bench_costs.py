"""Cost accounting: ``costs.log_costs`` (raw JSON of each sample's events) versus the slow
reference (Inspect's ``read_eval_log`` of the whole log, summing its model events).

One live ``arenahard`` run with scripted models (an answerer and a two-judge ensemble, so
4 judge calls per sample) writes a log with real model events; both methods must agree.

    python benchmarks/bench_costs.py [--samples 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import read_eval_log

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspect_arenahard import arenahard  # noqa: E402
from inspect_arenahard.evaluate.offline import seed_tiktoken_cache  # noqa: E402
from inspect_arenahard.report.costs import log_costs  # noqa: E402
from tests.helpers.scripted import judged, scripted_model  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "arena-hard-v0.1"


def judge(messages) -> str:  # type: ignore[no-untyped-def]
    _, answer_a, _ = judged(messages)
    return "[[A>B]]" if answer_a.startswith("MINE") else "[[B>A]]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-costs-"))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(work / "tiktoken")
    os.environ["INSPECT_CACHE_DIR"] = str(work / "cache")
    seed_tiktoken_cache(work / "tiktoken")
    t = time.perf_counter()
    [log] = eval(
        arenahard(data_dir=str(DATA)),
        model=scripted_model("bench-model", lambda m: "MINE " + m[-1].text[:200]),
        model_roles={"judge": [scripted_model("bench-judge1", judge), scripted_model("bench-judge2", judge)]},
        limit=args.samples, display="none", log_dir=str(work / "logs"), max_connections=32,
    )  # fmt: skip
    print(f"built one log of {args.samples} samples in {time.perf_counter() - t:.1f}s "
          f"({Path(log.location).stat().st_size / 2**20:.1f} MiB)")  # fmt: skip

    t = time.perf_counter()
    report = log_costs([work / "logs"])
    ours = time.perf_counter() - t
    t = time.perf_counter()
    full = read_eval_log(log.location)
    calls = sum(
        1 for s in full.samples or [] for e in s.events if e.event == "model" and e.cache != "read"
    )
    reference = time.perf_counter() - t
    assert report.total().calls == calls, (report.total().calls, calls)
    print(
        f"log_costs: {calls} calls in {ours:.2f}s ({1000 * ours / args.samples:.1f} ms per sample); "
        f"reference (read_eval_log): {reference:.2f}s; speed-up {reference / ours:.1f}×"
    )


if __name__ == "__main__":
    main()
