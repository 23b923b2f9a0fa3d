"""A real-shaped arena-hard-auto v2.0 folder for importer and report tests: the real questions
and stored o3-mini answers from ``../shared/data/arena-hard-v2.0``, synthetic gemini-2.0-flash
answers for creative writing (only the hard-prompt baseline is published there) and two judged
models, with 2025-schema judgment records naming their own baseline and category, strong
verdicts, ties and null games (the whole game ``null``, and ``score: null``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from inspect_arenahard.cli import main
from inspect_arenahard.judging.style_features import style_features
from tests.helpers.shared_data import shared

O3 = "o3-mini-2025-01-31"
GEMINI = "gemini-2.0-flash-001"
JUDGE = "gpt-4.1"
MODELS = {"terse-model": -0.4, "markdown-model": 0.5}
LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")


def answer_record(uid: str, model: str, prompt: str, text: str) -> dict:
    return {
        "uid": uid, "ans_id": f"{model}-{uid}", "model": model, "tstamp": 0,
        "messages": [{"role": "user", "content": prompt}, {"role": "assistant", "content": {"answer": text}}],
        "metadata": dict(style_features(text, "o200k_base")),
    }  # fmt: skip


def judge_prompt(prompt: str, a: str, b: str) -> list[dict]:
    user = (
        f"<|User Prompt|>\n{prompt}\n\n<|The Start of Assistant A's Answer|>\n{a}\n<|The End of Assistant A's Answer|>\n\n"
        f"<|The Start of Assistant B's Answer|>\n{b}\n<|The End of Assistant B's Answer|>"
    )
    return [
        {"role": "system", "content": "Please act as an impartial judge."},
        {"role": "user", "content": user},
    ]


def write_v2_folder(root: Path) -> Path:
    """question.jsonl and o3-mini answers linked from shared data; everything else written here."""
    rng = np.random.default_rng(11)
    v2 = shared("arena-hard-v2.0")
    (root / "model_answer").mkdir(parents=True)
    (root / "model_judgment" / JUDGE).mkdir(parents=True)
    (root / "question.jsonl").symlink_to(v2 / "question.jsonl")
    (root / "model_answer" / f"{O3}.jsonl").symlink_to(v2 / "model_answer" / f"{O3}.jsonl")
    questions = read_jsonl(v2 / "question.jsonl")
    o3 = {
        r["uid"]: r["messages"][-1]["content"]["answer"]
        for r in read_jsonl(v2 / "model_answer" / f"{O3}.jsonl")
    }
    chosen = [q for q in questions if q["category"] == "hard_prompt"][:60] + [
        q for q in questions if q["category"] == "creative_writing"
    ][:40]
    gemini = {
        q["uid"]: f"A short poem about {q['uid']}:\n\nroses and {len(q['prompt'])} lines"
        for q in chosen
        if q["category"] == "creative_writing"
    }
    write_jsonl(
        root / "model_answer" / f"{GEMINI}.jsonl",
        [answer_record(u, GEMINI, "p", t) for u, t in gemini.items()],
    )
    for model, strength in MODELS.items():
        texts = {
            q["uid"]: (
                o3[q["uid"]][:200]
                if model == "terse-model"
                else f"## Answer\n\n- **{q['uid']}**\n\n{o3[q['uid']]}"
            )
            for q in chosen
        }
        write_jsonl(
            root / "model_answer" / f"{model}.jsonl",
            [answer_record(q["uid"], model, q["prompt"], texts[q["uid"]]) for q in chosen],
        )
        records = []
        for q in chosen:
            baseline = O3 if q["category"] == "hard_prompt" else GEMINI
            base_text = o3[q["uid"]] if baseline == O3 else gemini[q["uid"]]
            games = []
            for number in (1, 2):
                a, b = (base_text, texts[q["uid"]]) if number == 1 else (texts[q["uid"]], base_text)
                # 0 = the model much better ... 4 = much worse; game 1 shows the model as B, game 2 as A
                pick = int(np.clip(rng.normal(2 - 1.5 * strength, 1.2), 0, 4).round())
                label = LABELS[4 - pick] if number == 1 else LABELS[pick]
                roll = rng.random()
                if roll < 0.04:
                    games.append(None)  # the judge API returned nothing
                    continue
                score = None if roll < 0.08 else label
                answer = f"My verdict: [[{score}]]" if score else "I cannot decide."
                games.append(
                    {
                        "score": score,
                        "judgment": {"answer": answer},
                        "prompt": judge_prompt(q["prompt"], a, b),
                    }
                )
            records.append(
                {
                    "uid": q["uid"],
                    "category": q["category"],
                    "judge": JUDGE,
                    "model": model,
                    "baseline": baseline,
                    "games": games,
                }
            )
        write_jsonl(root / "model_judgment" / JUDGE / f"{model}.jsonl", records)
    return root


def read_jsonl(path: Path) -> list[dict]:
    """Records of a JSONL file (line by line: prompts contain U+2028, which ``splitlines`` splits on)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )


def import_judgments(data: Path, out: Path, *extra: str) -> int:
    """``arenahard import arena-hard-auto DATA --judge JUDGE --out OUT [extra]``'s exit code."""
    return main(
        ["import", "arena-hard-auto", str(data), "--judge", JUDGE, "--out", str(out), *extra]
    )
