"""Canary drift and calibration, measured with scripted judges of known behaviour.

**Drift** (``stats.drift``): pairs of runs of one stochastic judge on the 16 shipped canaries
(each call drawn independently from the same per-game verdict distribution: a per-prompt leaning
toward the canary's model and a per-judge position bias, both drawn per judge) must be refused in
under 1% of pairs; beside it, how often a judge that changed is caught: a noisy judge whose
leaning flips on ``k`` of the 16 prompts, and the answer-hash → longer-answer switch of the
tests (on the shipped answers).

**Calibration** (``stats.calibration``): games between the 16 real v0.1 answer sets
(``../shared/data/arena-hard-v0.1/model_answer``) and the gpt-4-0314 baseline, judged by an
"old" scripted judge whose per-game win probability is ``expit(s_m + γ·Δlen + u)`` (``s_m`` from
the published 2024-07-31 scores, ``Δlen`` the answers' real length difference in standard units,
``u`` a per-(prompt, model) effect) and by a "new" judge with a known scale change
``expit(k·(s_m + γ·Δlen + u) + c)``. Both are ranked with ``stats.ranking.rank``; each model in
turn is left out of the fit, and its calibrated score is compared with the old judge's score of
it (leave-one-model-out error in points, and how often the calibrated interval, widened by the
old score's own variance, covers the old judge's measured score). The
reference in the same run is the uncalibrated error (new score against the old score).

    python benchmarks/bench_judge_checks.py               # the figures in benchmarks/README.md
    python benchmarks/bench_judge_checks.py --pairs 2000 --seeds 2   # a quick look
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np
from scipy.special import logit

from inspect_arenahard.evaluate.canaries import canary_pairs
from inspect_arenahard.stats.calibration import Scored, fit_calibration
from inspect_arenahard.stats.drift import DRIFT_ALPHA, canary_drift
from inspect_arenahard.stats.ranking import RankingOptions, rank
from inspect_arenahard.stats.verdict_points import LABELS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "arena-hard-v0.1"
SCALES = ((0.6, 0.0), (1.5, 0.0), (1.0, 0.5), (0.7, -0.4))
"""(k, c) of the new judge: less decisive, more decisive, shifted, both."""
CUTS = np.array([-1.55, -0.22, 0.22, 1.55])
"""Ordinal cut points on the latent advantage: ~11% ties, ~35% strong verdicts near 0."""


def labels_for(advantage: np.ndarray, rng: np.random.Generator, noise: float = 1.0) -> np.ndarray:
    """Verdict index for the model (0 = much better … 4 = much worse) of an ordinal logistic
    judge with latent advantage ``advantage`` and per-call noise of scale ``noise``."""
    latent = advantage + noise * rng.logistic(size=advantage.shape)
    return 4 - np.searchsorted(CUTS, latent)


# ------------------------------------------------------------------ drift


def _canary_records(values: list[int], run: str) -> list[dict[str, object]]:
    """Verdicts (−2…2 for the canary's model; game 1 shows it as B) as canary game records."""
    out = []
    for k, v in enumerate(values):
        game = k % 2 + 1
        position = "B" if game == 1 else "A"
        label = LABELS[2 - v] if position == "A" else LABELS[2 + v]
        out.append({"judge": "j", "log": run, "question_id": f"q{k // 2}", "game": game,
                    "model_position": position, "label": label})  # fmt: skip
    return out


def noisy_run(
    rng: np.random.Generator, leaning: np.ndarray, bias: float, noise: float
) -> list[int]:
    """One run of a stochastic judge: values −2…2 for the canary's model, both games per prompt."""
    values = []
    for lean in leaning:
        for game in (1, 2):
            toward_a = bias if game == 2 else -bias  # game 2 shows the model as A
            advantage = np.array([lean + toward_a])
            values.append(2 - int(labels_for(advantage, rng, noise)[0]))
    return values


def drift_figures(pairs: int, seed: int) -> None:
    started = time.perf_counter()
    print(
        f"drift test (level {DRIFT_ALPHA}), {pairs} pairs of runs of stochastic judges per noise level:"
    )
    for noise in (1.0, 0.3):
        rng = np.random.default_rng(seed)
        refused = 0
        caught = {k: 0 for k in (4, 6, 8, 10, 12, 16)}
        for _ in range(pairs):
            leaning = rng.normal(0, 1.5, 16)
            bias = rng.normal(0, 0.7)
            first = noisy_run(rng, leaning, bias, noise)
            second = noisy_run(rng, leaning, bias, noise)
            records = _canary_records(first, "a") + _canary_records(second, "b")
            [same] = canary_drift(records, ["a", "b"])
            refused += bool(same.drifted)
            for k in caught:
                changed = leaning.copy()
                changed[:k] = -changed[:k]  # the judge now sees k prompts the other way round
                later = noisy_run(rng, changed, bias, noise)
                records = _canary_records(first, "a") + _canary_records(later, "b")
                [drift] = canary_drift(records, ["a", "b"])
                caught[k] += bool(drift.drifted)
        print(
            f"  per-call noise scale {noise} (logistic): unchanged judge refused in {refused / pairs:.2%} of pairs"
        )
        for k, n in caught.items():
            print(
                f"    leaning flipped on {k:2d} of 16 prompts: caught in {n / pairs:.1%} of pairs"
            )

    def prefers(key) -> list[int]:  # type: ignore[no-untyped-def]
        values = []
        for p in canary_pairs():
            better = 1 if key(p.model_answer) > key(p.baseline_answer) else -1
            values += [better, better]
        return values

    def smaller_md5(text: str) -> int:
        return -int(hashlib.md5(text.encode()).hexdigest(), 16)

    [switch] = canary_drift(
        _canary_records(prefers(smaller_md5), "hash") + _canary_records(prefers(len), "longer"),
        ["hash", "longer"],
    )
    [c] = switch.comparisons
    print(
        f"  answer-hash → longer-answer judge on the shipped canaries: {c.disagree} of {c.games} "
        f"games disagree, p = {c.p_value:.2g}, {'caught' if c.drifted else 'missed'}"
    )
    print(f"  ({time.perf_counter() - started:.1f} s)")


# ------------------------------------------------------------ calibration


def answer_lengths() -> tuple[list[str], dict[str, dict[str, int]]]:
    """Models and their answers' lengths (characters) per question id."""
    lengths: dict[str, dict[str, int]] = {}
    for path in sorted((DATA / "model_answer").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        lengths[path.stem] = {
            r["question_id"]: len(r["choices"][0]["turns"][0]["content"]) for r in rows
        }
    return sorted(lengths), lengths


def published_strengths() -> dict[str, float]:
    scores = {}
    for name in (
        "arena_hard_leaderboard_20240731.csv",
        "meltemi_arena_hard_leaderboard_20250217.csv",
    ):
        for line in (DATA / "leaderboard" / name).read_text(encoding="utf-8").splitlines()[1:]:
            model, score = line.split(",")[:2]
            scores.setdefault(model, float(score))
    return {m: float(logit(min(max(s, 1.0), 99.0) / 100)) for m, s in scores.items()}


def judge_games(
    models: list[str], lengths: dict[str, dict[str, int]], strengths: dict[str, float],
    prompt_effect: dict[tuple[str, str], float], judge: str, k: float, c: float,
    rng: np.random.Generator,
) -> list[dict[str, object]]:  # fmt: skip
    base = "gpt-4-0314"
    records = []
    for model in models:
        if model == base:
            continue
        for qid, n in lengths[model].items():
            if qid not in lengths[base]:
                continue
            dlen = (np.log(n + 1) - np.log(lengths[base][qid] + 1)) / 0.6
            advantage = k * (strengths[model] + 0.25 * dlen + prompt_effect[(model, qid)]) + c
            for game in (1, 2):
                verdict = int(labels_for(np.array([advantage]), rng)[0])  # 0 = model much better
                position = "B" if game == 1 else "A"
                label = LABELS[verdict] if position == "A" else LABELS[4 - verdict]
                records.append({"question_id": qid, "model": model, "baseline": base,
                                "judge": judge, "game": game, "model_position": position,
                                "label": label, "parsed": True, "version": "v0.1"})  # fmt: skip
    return records


def calibration_figures(seeds: int) -> None:
    started = time.perf_counter()
    models, lengths = answer_lengths()
    strengths = published_strengths()
    print(f"\ncalibration: {len(models)} real answer sets, {seeds} seeds per scale change")
    print(
        "  new judge (k, c) | LOO error, calibrated (mean / max, points) | covered | uncalibrated error (mean / max)"
    )
    for k, c in SCALES:
        errors, raw, covered, total = [], [], 0, 0
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            effect = {(m, q): rng.normal(0, 0.5) for m in models for q in lengths[m]}
            old_table = rank(
                judge_games(models, lengths, strengths, effect, "old", 1.0, 0.0, rng),
                RankingOptions(),
            ).overall
            new_table = rank(
                judge_games(models, lengths, strengths, effect, "new", k, c, rng), RankingOptions()
            ).overall
            old = {
                r.model: Scored(r.score, old_table.score_covariance(r.model, r.model))
                for r in old_table.rows
                if r.model != old_table.baseline
            }
            new = {
                r.model: Scored(r.score, new_table.score_covariance(r.model, r.model))
                for r in new_table.rows
                if r.model != new_table.baseline
            }
            for held in sorted(old):
                fit = fit_calibration(new, {m: s for m, s in old.items() if m != held})
                row = fit.apply(held, new[held])
                errors.append(abs(row.score - old[held].score))
                raw.append(abs(new[held].score - old[held].score))
                # the old judge's measured score has its own noise: the prediction's spread adds it
                spread = np.hypot((row.upper - row.lower) / (2 * 1.96), np.sqrt(old[held].variance))
                covered += abs(row.score - old[held].score) <= 1.96 * spread
                total += 1
        print(
            f"  ({k:.1f}, {c:+.1f})       | {np.mean(errors):.2f} / {np.max(errors):.2f}"
            f"                        | {covered / total:.0%}     | {np.mean(raw):.2f} / {np.max(raw):.2f}"
        )
    print(f"  ({time.perf_counter() - started:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pairs", type=int, default=10_000, help="pairs of runs for the drift test"
    )
    parser.add_argument("--seeds", type=int, default=5, help="seeds per calibration scale change")
    args = parser.parse_args()
    drift_figures(args.pairs, seed=0)
    calibration_figures(args.seeds)


if __name__ == "__main__":
    main()
