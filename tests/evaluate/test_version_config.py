"""The version settings in ``scorers/configs`` load into typed objects, and bad files are one
error naming the file and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from inspect_arenahard.errors import UserError
from inspect_arenahard.evaluate.task import pairwise_judging
from inspect_arenahard.evaluate.version_config import (
    load_version_config,
    version_config,
)
from inspect_arenahard.judging.templates import data_dir

CONFIGS = data_dir("scorers") / "configs"
SHIPPED = {"v0.1": "arena-hard-v0.1.yaml", "v2.0": "arena-hard-v2.0.yaml", "custom": "custom.yaml"}


@pytest.mark.parametrize("version", SHIPPED)
def test_every_shipped_setting_is_read(version: str) -> None:
    """Each value in the file reaches the typed config unchanged; nothing is left out."""
    raw = yaml.safe_load((CONFIGS / SHIPPED[version]).read_text(encoding="utf-8"))
    config = version_config(version)
    assert config.version == version
    for key, value in raw.items():
        if isinstance(value, dict):
            section = getattr(config, key)
            for name, setting in value.items():
                assert getattr(section, name) == setting, f"{key}.{name}"
        else:
            assert getattr(config, key) == value, key


def test_defaults_fill_what_a_file_leaves_out() -> None:
    assert version_config("v0.1").judge.template_by_category == {}
    assert version_config("v0.1").baseline.by_category == {}
    assert version_config("custom").hub_folder is None
    assert version_config("custom").baseline.models() == []
    v2 = version_config("v2.0").baseline
    assert v2.for_category("creative_writing") == "gemini-2.0-flash-001"
    assert v2.for_category("other") == v2.for_category(None) == "o3-mini-2025-01-31"


def test_judge_settings_come_from_the_config() -> None:
    """The task's pairwise judging: the version's judge unless an argument overrides it."""
    v2 = pairwise_judging(version_config("v2.0"))
    assert (v2.default_judge, v2.max_tokens, v2.single_brackets) == (
        "openai/gpt-4.1",
        16000,
        True,
    )
    assert v2.template_by_category == {"creative_writing": "judge_system_creative"}
    assert v2.token_encoding == "o200k_base"
    v01 = pairwise_judging(version_config("v0.1"), "judge/x", 99, 0.5, 0, 2, False)
    assert v01.default_judge == "judge/x" and v01.template_by_category is None
    assert (v01.max_tokens, v01.temperature, v01.strong_weight) == (99, 0.5, 2)
    assert (v01.retries, v01.cache, v01.token_encoding) == (0, False, "cl100k_base")


def _write(tmp_path: Path, change: dict[str, Any], section: str | None = None) -> Path:
    raw = yaml.safe_load((CONFIGS / SHIPPED["v2.0"]).read_text(encoding="utf-8"))
    (raw[section] if section else raw).update(change)
    path = tmp_path / "arena-hard-test.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("section", "change", "named"),
    [
        (None, {"strong_wieght": 3}, "unknown key 'strong_wieght'"),
        ("judge", {"modle": "x"}, "judge: unknown key 'modle'"),
        ("baseline", {"defualt": "x"}, "baseline: unknown key 'defualt'"),
        (None, {"strong_weight": "three"}, "strong_weight: expected int"),
        (None, {"token_encoding": 200}, "token_encoding: expected str"),
        ("judge", {"max_tokens": "lots"}, "judge.max_tokens: expected int"),
        ("judge", {"max_tokens": True}, "judge.max_tokens: expected int"),
        ("judge", {"single_brackets": "yes"}, "judge.single_brackets: expected bool"),
        ("judge", {"model": None}, "judge.model: needs a value"),
        (
            "judge",
            {"template_by_category": ["x"]},
            "judge.template_by_category: expected a mapping",
        ),
        (
            "baseline",
            {"by_category": {"hard_prompt": 3}},
            "baseline.by_category: expected a mapping",
        ),
    ],
)
def test_bad_setting_is_one_error_naming_file_and_key(
    tmp_path: Path, section: str | None, change: dict[str, Any], named: str
) -> None:
    path = _write(tmp_path, change, section)
    with pytest.raises(UserError) as caught:
        load_version_config(path)
    assert str(path) in str(caught.value) and named in str(caught.value)


def test_a_file_must_be_a_mapping_with_a_version(tmp_path: Path) -> None:
    path = tmp_path / "listed.yaml"
    path.write_text("- v0.1\n", encoding="utf-8")
    with pytest.raises(UserError, match="expected a mapping"):
        load_version_config(path)
    path = tmp_path / "unversioned.yaml"
    path.write_text("strong_weight: 3\n", encoding="utf-8")
    with pytest.raises(UserError, match="missing key 'version'"):
        load_version_config(path)
