"""The judge report card: a scripted judge that agrees with the human majority on a hashed 80%
of the LLMBar pairs is reported at exactly that accuracy, with 80% inside its interval; the
always-longer baseline and the PandaLM human–human ceiling match independent computations."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval

from inspect_arenahard import arenahard
from inspect_arenahard.cli import main
from inspect_arenahard.judging.integrity import neutralise_all
from inspect_arenahard.scaleeval.data import PairItem, load_pairs
from inspect_arenahard.scaleeval.judgecard import arenahard_judgecard
from tests.helpers.scripted import judged, scripted_model
from tests.helpers.shared_data import shared

pytestmark = pytest.mark.shared_data


def agrees(item: PairItem) -> bool:
    """The scripted judge sides with the humans on a hashed 80% of the items."""
    return int(hashlib.sha256(item.id.encode()).hexdigest(), 16) % 10 < 8


def shown(item: PairItem) -> tuple[str, str]:
    texts, _ = neutralise_all(
        {"question": item.question, "model": item.submission_1, "baseline": item.submission_2}
    )
    return str(texts["model"]), str(texts["baseline"])


def card_judge(items: list[PairItem]):  # type: ignore[no-untyped-def]
    by_answers = {shown(i): i for i in items}

    def reply(messages) -> str:  # type: ignore[no-untyped-def]
        _, a, b = judged(messages)
        if (a, b) in by_answers:  # game 2: submission 1 shown as A
            item, first_is_a = by_answers[(a, b)], True
        else:
            item, first_is_a = by_answers[(b, a)], False
        wanted = item.gold if agrees(item) else {"1": "2", "2": "1"}.get(item.gold or "", "1")
        if wanted == "0":
            return "[[A=B]]"
        return "[[A>B]]" if (wanted == "1") == first_is_a else "[[B>A]]"

    return scripted_model("card-judge", reply)


def run_card(tmp_path: Path, data: Path, set_name: str, limit: int | None = None) -> list[PairItem]:
    items = load_pairs(data).items[:limit]
    [log] = eval(
        arenahard_judgecard(set=set_name, data=str(data), cache=False),
        model_roles={"judge": card_judge(items)},
        model=scripted_model("unused", lambda m: "no answer needed"),
        limit=limit,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return items


def test_a_judge_of_known_accuracy_is_reported_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared("meta_eval", "llmbar", "LLMBar_Natural.json")
    items = run_card(tmp_path / "llmbar", data, "llmbar")
    out = tmp_path / "card.json"
    assert main(["judges", "--card", str(tmp_path / "llmbar"), "--json", str(out)]) == 0
    assert "Judge report card" in capsys.readouterr().out
    [card] = json.loads(out.read_text())  # one record per judge
    realised = np.mean([agrees(i) for i in items])
    assert card["items"] == 100
    assert card["accuracy"]["value"] == pytest.approx(realised)
    assert card["accuracy"]["lower"] <= 0.8 <= card["accuracy"]["upper"]
    assert card["position_consistency"]["value"] == 1.0 and card["tie_rate"]["value"] == 0.0
    longer = [
        "1" if len(i.submission_1) > len(i.submission_2) else "2" if len(i.submission_2) > len(i.submission_1) else "0"
        for i in items
    ]  # fmt: skip
    assert card["always_longer"]["value"] == pytest.approx(
        np.mean([g == i.gold for g, i in zip(longer, items)])
    )
    assert card["human_ceiling"]["value"] is None  # LLMBar has one label per pair

    # the HTML report of a folder holding an arenahard run and the card shows an evaluator table
    candidate = scripted_model("candidate", lambda m: "Answer: " + m[-1].text[:40])
    eval(
        arenahard(data_dir=str(shared("arena-hard-v0.1")), canaries=0, cache=False),
        model=candidate,
        model_roles={"judge": scripted_model("lb-judge", lambda m: "[[A>B]]")},
        limit=2,
        log_dir=str(tmp_path / "llmbar"),
        display="none",
    )
    assert main(["report", str(tmp_path / "llmbar"), "--html", str(tmp_path / "html")]) == 0
    page = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    section = page.split("Evaluators against human labels", 1)[1].split("</table>", 1)[0]
    assert "mockllm/card-judge" in section and f">{100 * realised:.1f}<" in section


def test_the_human_ceiling_of_a_set_with_three_annotators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared("meta_eval", "pandalm", "testset-v1.json")
    items = run_card(tmp_path / "pandalm", data, "pandalm", limit=30)
    out = tmp_path / "card.json"
    assert main(["judges", "--card", str(tmp_path / "pandalm"), "--json", str(out)]) == 0
    capsys.readouterr()
    [card] = json.loads(out.read_text())
    # each annotator against the others' majority (brute force), items with a human majority
    per_item = []
    for item in items:
        if item.gold is None:
            continue
        scores = []
        for k in range(3):
            others = Counter(item.annotations[:k] + item.annotations[k + 1 :]).most_common()
            if len(others) == 1 or others[0][1] > others[1][1]:
                scores.append(item.annotations[k] == others[0][0])
        if scores:
            per_item.append(np.mean(scores))
    assert card["human_ceiling"]["value"] == pytest.approx(np.mean(per_item))
    assert card["items"] == sum(i.gold is not None for i in items)


def test_judgecard_judge_scores_agreement_with_the_human_majority(tmp_path: Path) -> None:
    """``judgecard_judge()`` on its own: each judge judges both orders; a pair scores the share of
    parsed verdicts that match the human majority, with the card's item data in the metadata."""
    from inspect_ai import Task

    from inspect_arenahard.judging.games import JudgeSettings
    from inspect_arenahard.scaleeval.judgecard import judgecard_judge

    data = shared("meta_eval", "llmbar", "LLMBar_Natural.json")
    items = load_pairs(data).items[:4]
    card = arenahard_judgecard(set="llmbar", data=str(data), cache=False)
    task = Task(
        dataset=card.dataset, solver=card.solver, scorer=judgecard_judge(JudgeSettings(cache=False))
    )
    [log] = eval(
        task,
        model=card_judge(items),  # no judge role bound: the main model judges
        limit=4,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples, log.error
    for sample, item in zip(log.samples, items):
        [score] = sample.scores.values()
        assert score.value == (1.0 if agrees(item) else 0.0), item.id
        assert len(score.metadata["games"]) == 2  # both positions
        assert score.metadata["card"]["gold"] == item.gold
