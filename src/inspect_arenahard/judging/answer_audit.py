"""The per-answer audit record (``inspect_arenahard.stats.game_record.AnswerAudit``), built
where a judge scorer or the importer has the texts at hand, so that the audit's flags come from
the sample summaries instead of every answer read again.

Two of the audit's checks compare an answer with others; each gets a compact per-answer input:

* ``null-model`` (answers alike across prompts) compares answers by the cosine of their
  character 5-gram vectors. ``answer_sketch`` keeps a 512-bit SimHash of that vector (the
  hyperplanes' ±1 coordinates drawn per hashed 5-gram by a fixed hash, so every writer draws the
  same): two sketches differ in a share ``d`` of their bits with expectation angle/π, so
  ``cos(π·d)`` estimates the cosine, with standard error sin θ · π · sqrt(d(1 − d)/512): 0.03
  near 0.8, 0.07 near 0 (on real answers the errors have exactly that spread).
* ``ignores-prompt`` asks whether the answer is closer to another prompt of the benchmark than
  to its own: ``PromptIndex.off_prompt_rank`` gives the share of the benchmark's other prompts
  closer to the answer (word TF-IDF fitted on the benchmark's prompts).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from inspect_arenahard.judging.injection import injection_findings
from inspect_arenahard.stats.game_record import AnswerAudit

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer

SKETCH_BITS = 512
_FENCE = re.compile(r"^[ \t]*```", re.MULTILINE)


@lru_cache(maxsize=1)
def _char_ngrams() -> HashingVectorizer:
    """Hashed character 5-grams, as the audit's exact similarity counts them (scikit-learn is
    imported when an answer is first vectorised: reading recorded sketches needs none of it)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        analyzer="char_wb", ngram_range=(5, 5), n_features=2**22, alternate_sign=False, norm=None
    )


_GOLDEN, _MIX1, _MIX2 = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xBF58476D1CE4E5B9),
    np.uint64(0x94D049BB133111EB),
)


def char_ngram_vectors(answers: Sequence[str]) -> Any:
    """Hashed character 5-gram counts, sublinear (log(1 + count): a run of dashes is one
    feature), not yet normalised: a scipy CSR matrix, one row per answer."""
    vectors = _char_ngrams().transform(answers)
    vectors.data = np.log1p(vectors.data)
    return vectors


def _hyperplane_signs(features: np.ndarray) -> np.ndarray:
    """±1 of each hashed feature on each of ``SKETCH_BITS`` hyperplanes: splitmix64 of
    (feature, word), so every writer draws the same hyperplanes."""
    words = SKETCH_BITS // 64
    keys = features.astype(np.uint64)[:, None] * np.uint64(words) + np.arange(
        words, dtype=np.uint64
    )
    z: np.ndarray = (keys + np.uint64(1)) * _GOLDEN  # uint64 throughout (the stubs say float)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    bits = np.unpackbits(z.astype("<u8").view(np.uint8), axis=1)  # (features, SKETCH_BITS)
    return bits.astype(np.float32) * 2.0 - 1.0


def answer_sketch(answer: str) -> str | None:
    """The answer's SimHash (base64 of ``SKETCH_BITS`` bits), or None when it has no 5-gram."""
    row = char_ngram_vectors([answer])
    if row.nnz == 0:
        return None
    projection = row.data.astype(np.float32) @ _hyperplane_signs(row.indices)
    return base64.b64encode(np.packbits(projection > 0).tobytes()).decode("ascii")


_COSINE_OF_DIFFERING = np.cos(np.pi * np.arange(SKETCH_BITS + 1) / SKETCH_BITS)
"""The estimated cosine of two sketches by the number of bits in which they differ."""


def sketch_similarity(sketches: Sequence[str | None]) -> np.ndarray:
    """Estimated cosine similarity of every pair of sketched answers (``answer_sketch``); a blank
    answer (no sketch) is like nothing (0), as in the exact measure."""
    n = len(sketches)
    blank = bytes(SKETCH_BITS // 8)
    packed = b"".join(blank if s is None else base64.b64decode(s) for s in sketches)
    words = np.frombuffer(packed, dtype=np.uint64).reshape(n, SKETCH_BITS // 64)
    sim = _COSINE_OF_DIFFERING[_differing_bits(words)]
    present = np.array([s is not None for s in sketches], dtype=bool)
    sim[~present, :] = 0.0
    sim[:, ~present] = 0.0
    return sim


@dataclass(frozen=True)
class SimilaritySummary:
    """What the audit keeps of the pairwise similarities of a model's answers."""

    nearest: np.ndarray
    """Per answer, its largest similarity with another answer (0 below two answers)."""
    median: float
    """Median similarity over all pairs of answers (nan below two answers)."""


_SIMILARITY_BY_KEY = np.concatenate(
    [
        _COSINE_OF_DIFFERING[: SKETCH_BITS // 2 + 1],
        [0.0],
        _COSINE_OF_DIFFERING[SKETCH_BITS // 2 + 1 :],
    ]
)
"""Every similarity a pair of sketched answers can have, largest first: the cosine by differing
bits, with a blank answer's 0 in its place (between 256 bits, cos ≈ 6e-17, and 257)."""
_BLANK_KEY = SKETCH_BITS // 2 + 1


def sketch_similarity_summary(sketches: Sequence[str | None]) -> SimilaritySummary:
    """``sketch_similarity``'s nearest neighbours and pair median, floating-point equal, from the
    differing-bit counts: the similarity falls as the count grows, so order statistics of the
    counts (a histogram over 0..512 bits) map to those of the similarities, and only the results
    go through the cosine."""
    n = len(sketches)
    if n < 2:
        return SimilaritySummary(nearest=np.zeros(n), median=float("nan"))
    present = [s for s in sketches if s is not None]
    m, blanks = len(present), n - len(present)
    histogram = np.zeros(len(_SIMILARITY_BY_KEY), dtype=np.int64)
    histogram[_BLANK_KEY] = blanks * m + blanks * (blanks - 1) // 2  # pairs with a blank: 0
    nearest = np.zeros(n)  # a blank answer is like nothing
    if m:
        packed = b"".join(map(binascii.a2b_base64, present))
        closest, pairs = _pair_counts(np.frombuffer(packed, dtype=np.uint64).reshape(m, -1))
        histogram[:_BLANK_KEY] += pairs[:_BLANK_KEY]
        histogram[_BLANK_KEY + 1 :] += pairs[_BLANK_KEY:]
        if m > 1:
            closest = closest.astype(np.intp)
            near = _SIMILARITY_BY_KEY[closest + (closest >= _BLANK_KEY)]
        else:
            near = np.full(1, -np.inf)
        if blanks:
            near = np.maximum(near, 0.0)
        nearest[[k for k, s in enumerate(sketches) if s is not None]] = near
    return SimilaritySummary(nearest=nearest, median=_median_by_key(histogram))


_UNSET = SKETCH_BITS + 1
"""A row's fewest differing bits when it has no pair: more bits than a sketch has."""


def _pair_counts(words: np.ndarray, block: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """(each row's fewest differing bits with another row, ``_UNSET`` for a lone row; the
    number of pairs differing in each count of bits, 0..``SKETCH_BITS``) of the rows of
    ``words``: each pair counted once, a block of rows at a time against the rows from that
    block on, each word of the sketches contiguous, the pairs' histogram and minima taken from
    each block while it is in cache (no pair matrix)."""
    n = len(words)
    if not hasattr(np, "bitwise_count"):
        differing = _differing_bits(words).astype(np.uint16)
        differing[np.tril_indices(n)] = _UNSET
        closest = np.minimum(differing.min(axis=1), differing.min(axis=0))
        return closest, np.bincount(differing.ravel(), minlength=_UNSET + 1)[:_UNSET]
    by_word = np.ascontiguousarray(words.T)
    closest = np.full(n, _UNSET, dtype=np.uint16)
    histogram = np.zeros(_UNSET + 1, dtype=np.int64)
    for start in range(0, n, block):
        stop = min(start + block, n)
        counts = np.zeros((stop - start, n - start), dtype=np.uint16)
        for word in by_word:
            counts += np.bitwise_count(word[start:stop, None] ^ word[None, start:])
        counts[np.tri(stop - start, n - start, dtype=bool)] = _UNSET  # each pair once
        histogram += np.bincount(counts.ravel(), minlength=_UNSET + 1)
        np.minimum(closest[start:stop], counts.min(axis=1), out=closest[start:stop])
        np.minimum(closest[start:], counts.min(axis=0), out=closest[start:])
    return closest, histogram[:_UNSET]


def _median_by_key(histogram: np.ndarray) -> float:
    """``np.median`` of the similarities counted by ``histogram`` (pairs per key of
    ``_SIMILARITY_BY_KEY``): the middle value, or the mean of the two middle values."""
    total = int(histogram.sum())
    cumulative = np.cumsum(histogram)
    low = _SIMILARITY_BY_KEY[np.searchsorted(cumulative, (total - 1) // 2, side="right")]
    high = _SIMILARITY_BY_KEY[np.searchsorted(cumulative, total // 2, side="right")]
    return float(low) if total % 2 else float(np.mean([low, high]))


def _differing_bits(words: np.ndarray) -> np.ndarray:
    """Bits in which every pair of rows of ``words`` (uint64) differ."""
    n = len(words)
    if not hasattr(np, "bitwise_count"):  # numpy < 2: ±1 vectors and a product
        signs = np.unpackbits(words.view(np.uint8), axis=1).astype(np.float32) * 2.0 - 1.0
        return np.rint((SKETCH_BITS - signs @ signs.T) / 2).astype(np.intp)
    differing = np.zeros((n, n), dtype=np.uint16)
    for k in range(words.shape[1]):  # a word at a time: no (n, n, words) temporary
        differing += np.bitwise_count(words[:, None, k] ^ words[None, :, k])
    return differing


class PromptIndex:
    """A benchmark's prompts as word TF-IDF vectors, to place an answer among them."""

    def __init__(self, prompts: Sequence[str]) -> None:
        self.prompts = list(prompts)
        self.name = f"{len(self.prompts)} prompts"
        """What Inspect records for a scorer argument holding an index."""
        self._row = {p: k for k, p in enumerate(self.prompts)}
        from sklearn.feature_extraction.text import TfidfVectorizer

        try:
            self._tfidf: TfidfVectorizer | None = TfidfVectorizer(sublinear_tf=True).fit(
                self.prompts
            )
            self._matrix = self._tfidf.transform(self.prompts)
        except ValueError:  # no prompt has a word
            self._tfidf = None

    def off_prompt_rank(self, prompt: str, answer: str) -> float | None:
        """The share of the other prompts more similar to ``answer`` than ``prompt`` is (0: its
        own prompt is closest); None with fewer than two prompts to compare."""
        if self._tfidf is None:
            return None
        vector = self._tfidf.transform([answer])
        sims = (self._matrix @ vector.T).toarray().ravel()
        row = self._row.get(prompt)
        if row is None:
            own = float((self._tfidf.transform([prompt]) @ vector.T).toarray()[0, 0])
            others = sims
        else:
            own = float(sims[row])
            others = np.delete(sims, row)
        if len(others) == 0:
            return None
        return float(np.sum(others > own) / len(others))


def is_cut(answer: str, stopped_at_limit: bool) -> bool:
    """A non-blank answer stopped at the token limit, or ending inside a code block."""
    return bool(answer.strip()) and (stopped_at_limit or len(_FENCE.findall(answer)) % 2 == 1)


def answer_audit(
    prompt: str,
    answer: str,
    baseline: str | None,
    stop_reason: str | None,
    prompts: PromptIndex | None,
) -> AnswerAudit:
    """The audit record of one answer to ``prompt`` (``prompts``: the benchmark's prompts, for
    the ``ignores-prompt`` check; None leaves it unknown)."""
    found = injection_findings(prompt, answer)
    return AnswerAudit(
        injection={kind: tuple(sorted(sp)) for kind, sp in sorted(found.items())},
        empty=not answer.strip(),
        cut=is_cut(answer, stop_reason == "max_tokens"),
        answer_chars=len(answer),
        baseline_chars=None if baseline is None else len(baseline),
        sketch=answer_sketch(answer),
        off_prompt_rank=None if prompts is None else prompts.off_prompt_rank(prompt, answer),
    )
