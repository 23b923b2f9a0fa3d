"""Overshoot of adaptive judging under Inspect's concurrency: samples already in flight when the
stopping rule fires finish and count. How many, at ``max_samples`` 1, 4, 16 and 32?

Live ``arenahard`` runs on the v0.1 prompts with scripted models that take 50–150 ms per call
(answer, then two judge calls): a model the judge always ranks below the baseline, with
``stop_when=decided -T versus=ref:50``. ``stopped_at`` is where the rule fired on the finished
prefix of the visit order (replayed in the log header); ``judged`` counts the samples answered
and judged; the overshoot is their difference. Reference: the rule itself, replayed with no
concurrency (``max_samples=1``).

    python benchmarks/bench_adaptive_overshoot.py [--runs 3] [--limit 200]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import anyio
from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inspect_arenahard import arenahard  # noqa: E402
from inspect_arenahard.evaluate.adaptive import SKIPPED  # noqa: E402
from tests.helpers.scripted import judged  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "arena-hard-v0.1"
MARK = "CANDIDATE::"


def slow_model(name: str, reply, calls: list[int], seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)

    async def outputs(messages, tools, tool_choice, config) -> ModelOutput:  # type: ignore[no-untyped-def]
        calls[0] += 1
        await anyio.sleep(rng.uniform(0.05, 0.15))
        output = ModelOutput.from_content(model=name, content=reply(messages))
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    return get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)


def judge(messages) -> str:  # type: ignore[no-untyped-def]
    _, answer_a, _ = judged(messages)
    return "[[B>>A]]" if answer_a.startswith(MARK) else "[[A>>B]]"


def one_run(concurrency: int, seed: int, limit: int, log_dir: str) -> tuple[int, int, int, int]:
    model_calls, judge_calls = [0], [0]
    model = slow_model(f"worse-{concurrency}-{seed}", lambda m: f"{MARK} answer", model_calls, seed)
    judge_model = slow_model(f"judge-{concurrency}-{seed}", judge, judge_calls, seed + 1)
    [log] = eval(
        arenahard(
            data_dir=str(DATA), stop_when="decided", versus="ref:50", prompt_seed=seed, cache=False
        ),
        model=model,
        model_roles={"judge": judge_model},
        limit=limit,
        max_samples=concurrency,
        max_connections=max(concurrency, 1),
        display="none",
        log_dir=log_dir,
    )
    assert log.status == "success" and log.results is not None and log.samples is not None
    metrics = log.results.scores[0].metrics
    stopped_at = int(metrics["stopped_at"].value)
    judged_samples = sum(
        SKIPPED not in (s.scores["pairwise_judge"].metadata or {}) for s in log.samples
    )
    assert model_calls[0] == judged_samples and judge_calls[0] == 2 * judged_samples
    return stopped_at, judged_samples, limit - judged_samples, model_calls[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{'max_samples':>11} {'run':>3} {'stopped_at':>10} {'judged':>6} {'overshoot':>9} {'skipped':>7} {'wall s':>6}")  # fmt: skip
    with tempfile.TemporaryDirectory() as log_dir:
        for concurrency in (1, 4, 16, 32):
            for seed in range(args.runs):
                t0 = time.perf_counter()
                stopped_at, judged_n, skipped, _ = one_run(concurrency, seed, args.limit, log_dir)
                print(
                    f"{concurrency:>11} {seed:>3} {stopped_at:>10} {judged_n:>6} "
                    f"{judged_n - stopped_at:>9} {skipped:>7} {time.perf_counter() - t0:>6.1f}"
                )
    print(f"elapsed {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
