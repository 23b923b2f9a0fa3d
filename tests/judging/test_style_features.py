"""Style features reproduce arena-hard-auto's stored conv_metadata on every real answer."""

from __future__ import annotations

import json

import pytest

from inspect_arenahard.judging.style_features import (
    count_tokens,
    markdown_counts,
    strip_code_blocks,
    style_features,
)
from tests.helpers.shared_data import shared


@pytest.mark.shared_data
def test_features_equal_stored_conv_metadata_on_every_v01_answer() -> None:
    files = sorted(shared("arena-hard-v0.1", "model_answer").glob("*.jsonl"))
    assert len(files) == 16
    total = matched = 0
    mismatches = []
    for path in files:
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            ours = dict(style_features(record["choices"][0]["turns"][0]["content"]))
            total += 1
            if ours == record["conv_metadata"]:
                matched += 1
            else:
                mismatches.append((path.stem, record["question_id"]))
    print(f"style features match stored conv_metadata: {matched}/{total} = {matched / total:.2%}")
    assert total == 7999
    assert mismatches == []


@pytest.mark.shared_data
def test_v2_stored_metadata_matches_with_o200k() -> None:
    path = shared("arena-hard-v2.0", "model_answer", "o3-mini-2025-01-31.jsonl")
    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    matched = sum(
        dict(style_features(r["messages"][-1]["content"]["answer"], "o200k_base")) == r["metadata"]
        for r in records
    )
    print(f"v2.0 o3-mini metadata match: {matched}/{len(records)}")
    assert matched == len(records) == 750


def test_markdown_outside_code_only() -> None:
    text = "# Title\n\n```python\n# comment\n- not a list\n**not bold**\n```\n\n1. one\n- two\n**bold** and __under__\n"
    counts = markdown_counts(text)
    assert counts["header_count"]["h1"] == 1
    assert counts["list_count"] == {"ordered": 1, "unordered": 1}
    assert counts["bold_count"] == {"**": 1, "__": 1}


def test_code_body_prefix_quirk_is_kept_for_parity() -> None:
    # the second block's body starts with the first block's body, so it is no longer found
    text = "```\nx = 1\n```\n\n```\nx = 1\n# not a header\n```"
    assert "# not a header" in strip_code_blocks(text)


def test_token_count_special_tokens_are_text() -> None:
    assert count_tokens("hello world") == 2
    assert count_tokens("<|endoftext|>") > 1
