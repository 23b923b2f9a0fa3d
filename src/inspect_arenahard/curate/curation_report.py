"""Report: per-cluster table, Figure-4-style plot, score distribution and annotation cost.

Reads the work folder and the annotation logs that ``select`` used (or ``--logs``); writes
``report.json`` and ``clusters.csv``, and a PNG of cluster mean scores in descending order
(BenchBuilder's Figure 4) when ``--plot`` is given. Cost comes from the logs' token usage:
the provider's own cost when Inspect recorded one, else list prices per million tokens
(``PRICES``, overridable), and is extrapolated to the whole pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from inspect_arenahard.curate.annotate import CRITERIA
from inspect_arenahard.curate.annotation_logs import read_agreement, read_usage
from inspect_arenahard.curate.cache import read_report, write_report
from inspect_arenahard.curate.selection import SelectOptions, cluster_table, join_annotations
from inspect_arenahard.curate.topics import OUTLIER
from inspect_arenahard.curate.work import Work
from inspect_arenahard.files.jsonl import read_jsonl
from inspect_arenahard.files.outputs import save_figure
from inspect_arenahard.report.costs import PRICES, CostReport, price_for, run_cost


def cost_estimate(
    usage: list[dict[str, Any]], pool_size: int, prices: dict[str, tuple[float, float]]
) -> dict[str, Any]:
    """USD spent per model, and projected for annotating the whole pool at the same rate."""
    per_model: dict[str, dict[str, Any]] = {}
    for u in usage:
        m = per_model.setdefault(
            u["model"],
            {"input_tokens": 0, "output_tokens": 0, "samples": 0, "usd": 0.0, "priced": True},
        )
        m["input_tokens"] += u["input_tokens"]
        m["output_tokens"] += u["output_tokens"]
        m["samples"] = max(m["samples"], u["samples"])
        if u["provider_cost"] is not None:
            m["usd"] += u["provider_cost"]
            continue
        price = price_for(u["model"], prices)
        if price is None:
            m["priced"] = False
        else:
            m["usd"] += (u["input_tokens"] * price[0] + u["output_tokens"] * price[1]) / 1e6
    total = sum(m["usd"] for m in per_model.values())
    annotated = max((m["samples"] for m in per_model.values()), default=0)
    return {
        "per_model": {k: v | {"usd": round(v["usd"], 4)} for k, v in per_model.items()},
        "usd": round(total, 4),
        "unpriced_models": sorted(k for k, v in per_model.items() if not v["priced"]),
        "usd_per_1k_prompts": round(1000 * total / annotated, 4) if annotated else None,
        "usd_for_pool": round(pool_size * total / annotated, 2) if annotated else None,
    }


def calls_by_role(logs: list[Any], prices: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """Calls, cached calls (free), tokens and cost per role (``model`` = the eval's ``--model``,
    ``annotator``, ``strong_annotator``) from the logs' model events."""
    return CostReport(
        runs=[run_cost(log.path, log.header.eval.model, prices) for log in logs]
    ).summary()["by_role"]


def score_distribution(scored: pd.DataFrame) -> dict[str, Any]:
    """% of parsed prompts with score ≥ k (k = 0..7) and % satisfying each criterion."""
    parsed = scored[scored["parsed"]]
    n = len(parsed)
    if not n:
        return {"prompts": 0}
    at_least = {
        str(k): round(100 * float((parsed["score"] >= k).mean()), 2)
        for k in range(len(CRITERIA) + 1)
    }
    per_criterion = {
        name: round(100 * float(parsed["criteria"].map(lambda c, i=i: (i + 1) in c).mean()), 2)
        for i, name in enumerate(CRITERIA)
    }
    return {
        "prompts": n,
        "percent_score_at_least": at_least,
        "percent_per_criterion": per_criterion,
    }


def plot_cluster_means(table: pd.DataFrame, min_cluster_mean: float, path: Path) -> None:
    """Bar chart of cluster mean scores, descending; chosen clusters highlighted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = table[(table.index != OUTLIER) & table["mean_score"].notna()].sort_values(
        "mean_score", ascending=False
    )
    fig, ax = plt.subplots(figsize=(12, 4.5))
    colors = ["#d62728" if k else "#1f77b4" for k in data["kept"] > 0]
    ax.bar(range(len(data)), data["mean_score"], color=colors, width=1.0)
    ax.axhline(
        min_cluster_mean,
        color="gray",
        linestyle="--",
        linewidth=1,
        label=f"min cluster mean {min_cluster_mean:g}",
    )
    ax.set_xlabel(f"clusters, by mean score ({len(data)} annotated clusters; red = selected)")
    ax.set_ylabel("mean quality score (0-7)")
    ax.set_ylim(0, len(CRITERIA))
    ax.set_xlim(-0.5, max(len(data), 1) - 0.5)
    ax.set_title("Cluster mean prompt-quality scores")
    ax.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def report(
    work: Work,
    logs: list[str | Path] | None = None,
    plot: Path | None = None,
    prices: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Build the curation report; returns it (also written to ``report.json``)."""
    selected = read_report(work.report("select"))
    options = SelectOptions(**selected["settings"]) if selected else SelectOptions()
    logs = logs or (selected["logs"] if selected else None)
    if not logs:
        raise ValueError("no annotation logs: pass --logs, or run `arenahard curate select` first")
    scored, _, found = join_annotations(work, logs)
    table = cluster_table(scored, options)
    kept = pd.Series(0, index=table.index)
    if work.benchmark.is_file():
        counts = pd.Series([r["cluster"] for _, r in read_jsonl(work.benchmark)]).value_counts()
        kept = kept.add(counts, fill_value=0).astype(int)
    table = table.assign(kept=kept.reindex(table.index).fillna(0).astype(int))
    table.sort_values("mean_score", ascending=False).to_csv(work.root / "clusters.csv")
    if plot is not None:
        plot_cluster_means(table, options.min_cluster_mean, plot)
    usage = read_usage(found)
    out = {
        "step": "report",
        "prompts": len(scored),
        "clusters": int((table.index != OUTLIER).sum()),
        "annotated": int(scored["annotated"].sum()),
        "unparsed": int((scored["annotated"] & ~scored["parsed"]).sum()),
        "selected": int(table["kept"].sum()),
        "distribution": score_distribution(scored),
        "cost": cost_estimate(usage, len(scored), PRICES | (prices or {}))
        | {"by_role": calls_by_role(found, PRICES | (prices or {}))},
        "annotator_agreement": read_agreement(found),
        "cluster_table": str(work.root / "clusters.csv"),
        "plot": str(plot) if plot else None,
    }
    return write_report(work.report("report"), out)
