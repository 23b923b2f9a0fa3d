"""``arenahard curate run config.yaml``: the whole pipeline from one file.

Sections (all optional except ``work`` and ``ingest``; keys are the CLI flags' names with
underscores) run in order, each skipped when its inputs are unchanged:

```yaml
work: work/                    # relative paths are relative to this file
ingest:  {sources: [lmsys/lmsys-chat-1m], split: train, limit: 200000}
filters: {min_chars: 32, languages: [en], near_dup_threshold: 0.95}
cluster: {min_cluster_size: 10, outliers: keep, namer: keywords}
scale:   {engine: ray, ray_actors: 4, umap_sample: 200000}   # optional: ingest and cluster on Ray
annotate:                      # runs `inspect eval arenahard_annotate`
  model: openai/gpt-4o-mini
  model_roles: {strong_annotator: openai/gpt-4o}
  log_dir: logs/
  task_args: {screen_min_score: 5}
  eval_args: {max_connections: 32}
select:  {min_score: 6, min_cluster_mean: 5, clusters: 250, per_cluster: 2}
report:  {plot: clusters.png, prices: {my-model: [0.5, 1.5]}}
```
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any, Callable

import yaml

from inspect_arenahard.curate.cache import file_digest
from inspect_arenahard.curate.cluster import cluster
from inspect_arenahard.curate.curation_report import report
from inspect_arenahard.curate.filters import FilterOptions
from inspect_arenahard.curate.ingest import ingest
from inspect_arenahard.curate.selection import SelectOptions, select
from inspect_arenahard.curate.step_options import ClusterOptions, IngestOptions, ScaleOptions
from inspect_arenahard.curate.work import Work
from inspect_arenahard.typed_options import from_mapping

SECTIONS = ("work", "ingest", "filters", "cluster", "scale", "annotate", "select", "report")
ANNOTATE_KEYS = ("model", "model_roles", "log_dir", "task_args", "eval_args")


def load_config(path: Path) -> dict[str, Any]:
    """The sections of a curation config; an unknown section, or no work/ingest, is an error."""
    if not path.is_file():
        raise FileNotFoundError(f"config file not found: {path}")
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping of sections ({', '.join(SECTIONS)})")
    unknown = sorted(set(loaded) - set(SECTIONS))
    if unknown:
        raise ValueError(f"{path}: unknown section {unknown[0]!r} (known: {', '.join(SECTIONS)})")
    for required in ("work", "ingest"):
        if required not in loaded:
            raise ValueError(f"{path}: missing section {required!r}")
    return loaded


def _resolver(base: Path) -> Callable[[str], str]:
    """Paths (and globs of shards) relative to the config file; strings that are no local path
    (hub ids) unchanged."""

    def resolve(value: str) -> str:
        candidate = base / value
        here = candidate.exists() or (
            glob.has_magic(value) and bool(glob.glob(str(candidate), recursive=True))
        )
        return os.path.normpath(candidate) if not Path(value).is_absolute() and here else value

    return resolve


def _roles(bound: dict[str, Any] | None) -> dict[str, list[str]]:
    """Role → sorted model names, from a log's ``model_roles``."""
    return {
        k: sorted(m.model for m in (v if isinstance(v, list) else [v]))
        for k, v in (bound or {}).items()
    }


def _annotate(work: Work, section: dict[str, Any], where: str, base: Path) -> list[str]:
    """Run (or reuse) the annotation eval; returns its log folder."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import list_eval_logs, read_eval_log

    from inspect_arenahard.curate.annotate import arenahard_annotate

    unknown = sorted(set(section) - set(ANNOTATE_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(ANNOTATE_KEYS)})")
    if "model" not in section:
        raise ValueError(f"{where}: missing key 'model'")
    log_dir = str(base / section.get("log_dir", "logs"))
    roles = {
        k: sorted(v if isinstance(v, list) else [v])
        for k, v in (section.get("model_roles") or {}).items()
    }
    digest = file_digest(work.prompts)
    task_args = section.get("task_args") or {}
    if Path(log_dir).is_dir():
        for info in list_eval_logs(log_dir):
            header = read_eval_log(info.name, header_only=True)
            same = (
                (header.eval.metadata or {}).get("pool_digest") == digest
                and header.eval.model == section["model"]
                and _roles(header.eval.model_roles) == roles
                and header.eval.task_args_passed == {"pool": str(work.prompts), **task_args}
            )
            if same and header.status == "success":
                return [log_dir]  # this pool was already annotated with these settings
    logs = inspect_eval(
        arenahard_annotate(pool=str(work.prompts), **task_args),
        model=section["model"],
        model_roles=section.get("model_roles"),
        log_dir=log_dir,
        **(section.get("eval_args") or {}),
    )
    failed = [log.location for log in logs if log.status != "success"]
    if failed:
        raise RuntimeError(
            f"annotation did not finish ({', '.join(failed)}); re-run to resume from the cache"
        )
    return [log_dir]


def run(config_path: str | Path, force: bool = False) -> dict[str, Any]:
    """Run every section of the config in order; returns each step's report."""
    path = Path(config_path)
    config = load_config(path)
    base = path.parent
    resolve = _resolver(base)
    work = Work.at(os.path.normpath(base / config["work"]), create=True)
    ingest_section = dict(config["ingest"] or {})
    sources = ingest_section.pop("sources", None)
    if not isinstance(sources, list) or not sources:
        raise ValueError(f"{path}: ingest.sources must be a non-empty list")
    scale = from_mapping(ScaleOptions, config.get("scale"), f"{path}: scale")
    reports: dict[str, Any] = {}
    reports["ingest"] = ingest(
        [resolve(s) for s in sources],
        work,
        from_mapping(IngestOptions, ingest_section, f"{path}: ingest"),
        force,
        scale,
    )
    filters = from_mapping(FilterOptions, config.get("filters"), f"{path}: filters")
    options = from_mapping(ClusterOptions, config.get("cluster"), f"{path}: cluster")
    reports["cluster"] = cluster(work, filters, options, force, scale)
    if "annotate" not in config:
        return reports
    logs = _annotate(work, config["annotate"] or {}, f"{path}: annotate", base)
    if "select" in config:
        section = dict(config["select"] or {})
        logs = [resolve(p) for p in section.pop("logs", logs)]
        reports["select"] = select(
            work, logs, from_mapping(SelectOptions, section, f"{path}: select"), force
        )
    if "report" in config:
        section = dict(config["report"] or {})
        unknown = sorted(set(section) - {"plot", "prices", "logs"})
        if unknown:
            raise ValueError(
                f"{path}: report: unknown key {unknown[0]!r} (known: logs, plot, prices)"
            )
        plot = base / section["plot"] if section.get("plot") else None
        prices = {k: (float(v[0]), float(v[1])) for k, v in (section.get("prices") or {}).items()}
        reports["report"] = report(
            work, [resolve(p) for p in section.get("logs", logs)], plot, prices
        )
    return reports
