"""ScaleEval inputs: loaders on every shared meta-eval file, criteria rubrics and perturbations."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from inspect_arenahard.scaleeval.criteria import VARIANTS, level_texts, render, rubric
from inspect_arenahard.scaleeval.data import load_pairs, split_dialogues, to_original
from tests.helpers.shared_data import shared

META = shared("meta_eval")

# record counts from ../shared/data/MANIFEST.md (section meta_eval)
MANIFEST = {
    "llmbar/LLMBar_Natural.json": 100,
    "llmbar/LLMBar_Adversarial_GPTInst.json": 92,
    "llmbar/LLMBar_Adversarial_GPTOut.json": 47,
    "llmbar/LLMBar_Adversarial_Manual.json": 46,
    "llmbar/LLMBar_Adversarial_Neighbor.json": 134,
    "llmbar/Processed_MT-Bench.json": 200,
    "llmbar/Processed_FairEval.json": 66,
    "llmbar/Processed_LLMEval2.json": 200,
    "pandalm/testset-v1.json": 999,
    "auto_j/testdata_pairwise.jsonl": 1392,
    "hh_rlhf/harmless-base_test.jsonl.gz": 2312,
}


def raw_gold_counts(relative: str) -> Counter[str]:
    """Gold labels counted straight from the file with each set's documented convention."""
    path = META / relative
    if relative.startswith("llmbar/"):
        return Counter(str(r["label"]) for r in json.loads(path.read_text()))
    if relative.startswith("pandalm/"):
        counts: Counter[str] = Counter()
        for r in json.loads(path.read_text()):
            votes = Counter([r["annotator1"], r["annotator2"], r["annotator3"]]).most_common(1)[0]
            counts[str(votes[0]) if votes[1] >= 2 else "none"] += 1
        return counts
    if relative.startswith("auto_j/"):  # 0: response 1 better, 1: response 2 better, 2: tie
        return Counter(
            {"0": "1", "1": "2", "2": "0"}[str(json.loads(line)["label"])] for line in path.open()
        )
    return Counter(
        {"1": sum(1 for _ in gzip.open(path, "rt"))}
    )  # HH-RLHF: the chosen reply is submission 1


def test_every_shared_meta_eval_file_is_covered() -> None:
    on_disk = {str(p.relative_to(META)) for p in META.rglob("*") if p.is_file()}
    assert on_disk == set(MANIFEST)


@pytest.mark.parametrize("relative", sorted(MANIFEST))
def test_loader_counts_match_the_manifest(relative: str) -> None:
    pairs = load_pairs(META / relative)
    assert len(pairs.items) == MANIFEST[relative]
    assert pairs.label_counts() == dict(raw_gold_counts(relative))
    assert pairs.no_gold == 0
    assert len({item.id for item in pairs.items}) == len(pairs.items)
    assert all(item.question.strip() for item in pairs.items)
    print(relative, pairs.format, pairs.label_counts())  # the label counts, reported


def test_loader_details() -> None:
    autoj = load_pairs(META / "auto_j/testdata_pairwise.jsonl")
    assert len({item.scenario for item in autoj.items}) == 58  # MANIFEST: 58 scenarios
    panda = load_pairs(META / "pandalm/testset-v1.json")
    assert all(len(item.annotations) == 3 for item in panda.items)
    assert panda.items[157].submission_1 == "True"  # a JSON boolean answer is kept as its text
    assert panda.items[466].question == "Truthfulness"  # blank instruction: the input alone
    hh = load_pairs(META / "hh_rlhf/harmless-base_test.jsonl.gz")
    first = hh.items[0]
    assert first.question.startswith("Human:") and not first.question.endswith("Assistant:")
    assert "\n\nAssistant:" not in first.submission_1 and first.submission_1 != first.submission_2


def test_hh_dialogues_split_at_the_last_shared_assistant_turn() -> None:
    chosen = (
        "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: joke?\n\nAssistant: Why did the chicken..."
    )
    rejected = "\n\nHuman: hi\n\nAssistant: hello\n\nHuman: joke?\n\nAssistant: No."
    assert split_dialogues(chosen, rejected, "x") == (
        "Human: hi\n\nAssistant: hello\n\nHuman: joke?",
        "Why did the chicken...",
        "No.",
    )
    with pytest.raises(
        ValueError, match="x: the chosen and rejected dialogues share no assistant turn"
    ):
        split_dialogues("\n\nHuman: a", "\n\nHuman: b", "x")


def test_plain_jsonl_and_bad_input_errors(tmp_path: Path) -> None:
    good = tmp_path / "pairs.jsonl"
    good.write_text(
        json.dumps({"id": "a", "question": "q", "submission_1": "s1", "submission_2": "s2", "label": 2, "scenario": "coding"}) + "\n"
        + json.dumps({"id": "b", "question": "q", "submission_1": "s1", "submission_2": "s2"}) + "\n"
    )  # fmt: skip
    pairs = load_pairs(good)
    assert (
        pairs.format == "jsonl"
        and [i.gold for i in pairs.items] == ["2", None]
        and pairs.no_gold == 1
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"question": "q", "submission_1": "s1", "submission_2": "s2", "label": 3}) + "\n"
    )
    with pytest.raises(
        ValueError, match=r"bad.jsonl:1: field 'label' is 3; expected one of 1, 2, 0"
    ):
        load_pairs(bad)
    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps({"question": "q", "submission_1": "s1"}) + "\n")
    with pytest.raises(ValueError, match=r"missing.jsonl:1: missing field 'submission_2'"):
        load_pairs(missing, "jsonl")
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"x": 1}\n')
    with pytest.raises(ValueError, match="odd.jsonl: cannot tell the format from fields"):
        load_pairs(odd)


def test_order_mapping() -> None:
    assert [to_original(v, "21") for v in ("1", "2", "0", None)] == ["2", "1", "0", None]
    assert [to_original(v, "12") for v in ("1", "2", "0")] == ["1", "2", "0"]


# ---------------------------------------------------------------- criteria

LINE = re.compile(r'^"(\d)": "(.*)"$')


def parsed(text: str) -> list[tuple[int, str]]:
    rows = []
    for line in text.splitlines():
        match = LINE.match(line)
        assert match, line
        rows.append((int(match.group(1)), match.group(2)))
    return rows


@pytest.mark.parametrize("criterion", ["helpfulness", "creativity"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_are_deterministic_and_keep_the_structure(criterion: str, variant: str) -> None:
    levels = rubric(criterion)
    text = render(levels, variant, seed=7)
    assert text == render(levels, variant, seed=7)
    rows = parsed(text)
    assert [score for score, _ in rows] == [1, 2, 3, 4, 5]
    general = [level.text for level in levels]
    for (_, got), original, level in zip(rows, general, levels):
        if variant == "general":
            assert got == original
        elif variant == "shortened":
            assert got == level.description and not got.startswith(level.name)
        elif variant == "flipped":
            assert got.split() != original.split() and got.count(" ") == original.count(" ")
            back = [
                t[::-1] for t in got.split()
            ]  # reversing each token again restores the words' letters
            assert sorted("".join(filter(str.isalnum, w)) for w in back) == sorted(
                "".join(filter(str.isalnum, w)) for w in original.split()
            )
        elif variant == "shuffled":
            assert sorted(got.split()) == sorted(original.split()) and got != original
        elif variant == "gibberish":
            assert len(got) == len(original) and got != original
            changed = [(a, b) for a, b in zip(original, got) if a != b]
            assert all(a.isalpha() and not b.isalpha() for a, b in changed)
            assert 0.15 < len(changed) / sum(c.isalpha() for c in original) < 0.45
        elif variant == "masked":
            assert len(got) == len(original) and got != original
            assert all(b == "_" for a, b in zip(original, got) if a != b)
    if variant in ("gibberish", "shuffled", "masked"):
        assert render(levels, variant, seed=8) != text  # the seed matters


def test_flipped_matches_the_paper_example() -> None:
    [(_, first), *_] = level_texts(rubric("helpfulness"), "flipped")
    # Chern et al. Table 8, Type 5 (the paper's own line has typos: 'eHT', 'detalernu')
    assert first.startswith("toN lufpleH - ehT esnopser si yletelpmoc detalernu, skcal ecnerehoc,")


def test_unknown_variant_and_criterion() -> None:
    with pytest.raises(ValueError, match="unknown criteria variant 'reversed'"):
        render(rubric("helpfulness"), "reversed")
    with pytest.raises(
        ValueError, match="unknown criterion 'honesty'; known: creativity, helpfulness"
    ):
        rubric("honesty")


# ---------------------------------------------------------------- prompts


def test_templates_and_rubrics_transcribe_the_paper_prompts() -> None:
    from inspect_arenahard.judging.templates import config, template
    from tests.helpers.shared_data import SHARED_DATA

    spec_path = SHARED_DATA.parent / "spec" / "seed_prompts.md"
    if not spec_path.is_file():
        raise FileNotFoundError(f"prompt specification missing: {spec_path}")
    spec = spec_path.read_text(encoding="utf-8")
    battle_format = config("committee")["battle"]["verdict_format"]
    pieces = {
        "committee_battle_system": template("committee_battle_system"),
        "committee_discussion": template("committee_discussion")
        .split("\n\n{responses}")[0]
        .replace("{verdict_format}", battle_format),
        "scaleeval_instruction": template("scaleeval_instruction"),
        "scaleeval_speaker": template("scaleeval_speaker").format(speaker="1/2/3"),
        "scaleeval_discussion": template("scaleeval_discussion").split("{evaluations}\n\n")[1],
        "scaleeval_initial": template("scaleeval_initial").splitlines()[-1],
    }
    for name, text in pieces.items():
        assert text in spec, name
    for criterion in ("helpfulness", "creativity"):
        for level in rubric(criterion):
            assert f'"{level.score}": "{level.text}"' in spec, (criterion, level.score)
