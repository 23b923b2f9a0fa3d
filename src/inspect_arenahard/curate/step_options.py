"""The settings of the curation steps (CLI flags and run-config keys, via ``typed_options``).

They live in this leaf module, apart from the steps that use them, so that every step and helper
module can name them without importing another step (no import circles, type-only ones included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

COMPILE_MODES = ("auto", "on", "off")


ENGINES = ("local", "ray")


OUTLIER_MODES = ("keep", "reassign")


@dataclass(frozen=True)
class FieldMap:
    """Which record fields hold the id, the prompt (one of text/turns/conversation), label, language."""

    id: str | None = None
    text: str | None = None
    turns: str | None = None
    conversation: str | None = None
    label: str | None = None
    language: str | None = None


@dataclass
class IngestOptions:
    """How to read the sources (the same for every source of one run)."""

    split: str = field(default="train", metadata={"help": "split of a Hugging Face dataset"})
    subset: str | None = field(
        default=None, metadata={"help": "configuration name of a Hugging Face dataset"}
    )
    id_field: str | None = field(
        default=None, metadata={"help": "record field with the source id (default: detected)"}
    )
    text_field: str | None = field(
        default=None, metadata={"help": "record field with the prompt text"}
    )
    turns_field: str | None = field(
        default=None, metadata={"help": "record field with a list of user turns"}
    )
    conversation_field: str | None = field(
        default=None, metadata={"help": "record field with a [{role, content}] conversation"}
    )
    label_field: str | None = field(
        default=None, metadata={"help": "record field with a topic/category label"}
    )
    limit: int | None = field(
        default=None, metadata={"help": "read at most this many records per source"}
    )

    def explicit(self) -> FieldMap:
        """The field names given on the command line (unset ones are detected or preset)."""
        return FieldMap(
            id=self.id_field,
            text=self.text_field,
            turns=self.turns_field,
            conversation=self.conversation_field,
            label=self.label_field,
        )


@dataclass
class ClusterOptions:
    """How ``curate cluster`` embeds, reduces and clusters (CLI flags and config keys)."""

    min_cluster_size: int = field(default=10, metadata={"help": "HDBSCAN's smallest cluster"})
    n_neighbors: int = field(default=15, metadata={"help": "UMAP neighbours"})
    n_components: int = field(default=5, metadata={"help": "UMAP dimensions"})
    min_dist: float = field(default=0.0, metadata={"help": "UMAP min_dist"})
    seed: int = field(
        default=42, metadata={"help": "random seed (neighbour search, UMAP, topic examples)"}
    )
    outliers: str = field(
        default="keep",
        metadata={"help": "keep outliers as cluster -1, or reassign them to the nearest cluster"},
    )
    embedder: str = field(
        default="minilm",
        metadata={
            "help": "minilm (offline, on the fastest backend here that keeps the vectors: ONNX Runtime int8 where "
            "it is installed and the CPU has no AMX, else torch; both engines alike), minilm-torch, minilm-onnx "
            "(float32: the torch model's vectors exactly), minilm-onnx:int8 or openai[:<model>]"
        },
    )
    embed_max_tokens: int | None = field(
        default=128,
        metadata={
            "help": "truncate prompts to this many tokens when embedding; all-MiniLM-L6-v2 was fine-tuned on "
            "128-token inputs (NMI 0.895 vs 0.897 at its 256 limit on the Arena catalog, twice as fast); 0 = the model's limit"
        },
    )
    namer: str = field(
        default="keywords",
        metadata={
            "help": "topic names: 'keywords' (c-TF-IDF) or an Inspect model, e.g. openai/gpt-4o-mini"
        },
    )
    topic_examples: int = field(
        default=10, metadata={"help": "example prompts shown to an LLM topic namer"}
    )


@dataclass
class ScaleOptions:
    """Which engine runs ``curate cluster`` and how it splits the work."""

    engine: str = field(
        default="local",
        metadata={
            "help": "local (one process) or ray (Ray Data: local Ray, or the cluster in RAY_ADDRESS)"
        },
    )
    embed_compile: str = field(
        default="auto",
        metadata={
            "help": "compile the embedding model with torch.compile (~15 s, then 1.2-1.5x faster on CPU): "
            "auto = when 20K or more prompts need embedding, on, off"
        },
    )
    umap_sample: int = field(
        default=200_000,
        metadata={
            "help": "fit UMAP on this many seeded prompts and transform the rest (local engine: in "
            "this process; ray: in parallel); pools up to this size get one fit on all; 0 = always fit on all"
        },
    )
    ray_actors: int = field(
        default=1, metadata={"help": "ray: embedding actors (each loads the model once)"}
    )
    ray_batch_size: int = field(
        default=1024, metadata={"help": "ray: prompts per embedding batch sent to an actor"}
    )
    ray_actor_cpus: float = field(default=1.0, metadata={"help": "ray: CPUs per embedding actor"})
    ray_actor_gpus: float = field(
        default=0.0, metadata={"help": "ray: GPUs per embedding actor (0 = CPU actors)"}
    )
    ray_cpus: int | None = field(
        default=None,
        metadata={
            "help": "ray: CPUs of a local Ray started here, None = all (ignored with RAY_ADDRESS)"
        },
    )

    def checked_engine(self) -> str:
        """The engine's name, once it and the compile mode are known to be valid (a typo fails before any work)."""
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.embed_compile not in COMPILE_MODES:
            raise ValueError(
                f"embed compile must be one of {', '.join(COMPILE_MODES)}, got {self.embed_compile!r}"
            )
        return self.engine

    def key_parts(self) -> dict[str, Any]:
        """What changes the results (part of the step's cache key); placement and speed options do not.

        Compiling the embedding model changes vectors only by bfloat16 rounding, as the CPU's
        precision does, and embeddings are cached per model whichever way they were computed.
        Both engines fit UMAP on a sample above ``umap_sample`` prompts, so it is part of the
        key for both (local results cached before the local engine sampled are recomputed once:
        the embeddings stay cached).
        """
        self.checked_engine()
        return (
            {"umap_sample": self.umap_sample}
            if self.engine == "local"
            else {"engine": self.engine, "umap_sample": self.umap_sample}
        )


@dataclass
class FilterOptions:
    """Which text filters run and their thresholds (CLI flags and config keys)."""

    first_turn: bool = field(
        default=False,
        metadata={
            "help": "keep multi-turn conversations by their first user turn (default: drop them)"
        },
    )
    min_chars: int = field(
        default=32, metadata={"help": "keep prompts longer than this many characters (papers: 32)"}
    )
    max_chars: int = field(
        default=16_000, metadata={"help": "truncate prompts longer than this many characters"}
    )
    languages: list[str] = field(
        default_factory=lambda: ["en"],
        metadata={"help": "ISO 639-1 codes to keep; 'any' keeps every language"},
    )
    language_min_confidence: float = field(
        default=0.5,
        metadata={
            "help": "drop a prompt only when the detector is at least this sure it is another language"
        },
    )
    hook: str | None = field(
        default=None,
        metadata={
            "help": "PII/unsafe filter 'module:function'; the function gets a prompt and returns a reason to drop it or None"
        },
    )
    drop_judge_text: bool = field(
        default=False,
        metadata={
            "help": "drop prompts carrying text only a judge or annotator writes (verdict labels, "
            "criteria lists, chat-template turns); by default they are counted and kept, neutralised"
        },
    )
    near_dup_threshold: float = field(
        default=0.95,
        metadata={"help": "drop a prompt whose embedding cosine with a kept one is at least this"},
    )


@dataclass
class SelectOptions:
    """How ``curate select`` picks prompts from clusters (CLI flags and config keys)."""

    min_score: int = field(
        default=6, metadata={"help": "keep prompts with at least this quality score (0-7)"}
    )
    min_cluster_mean: float = field(
        default=5.0, metadata={"help": "keep clusters whose mean score is at least this"}
    )
    clusters: int = field(default=250, metadata={"help": "number of qualifying clusters to draw"})
    per_cluster: int = field(default=2, metadata={"help": "prompts drawn from each chosen cluster"})
    seed: int = field(default=42, metadata={"help": "seed of both draws"})
    category: str = field(
        default="hard_prompt", metadata={"help": "category written on every selected prompt"}
    )
    include_outliers: bool = field(
        default=False,
        metadata={"help": "let the outlier group (cluster -1) qualify like a cluster"},
    )
