"""Docs cannot drift from the code: every generated settings table is in its document, as generated."""

import pytest

from infact import deployment
from infact.study.config import StudyConfig
from infact.study.platform_config import PlatformConfig
from infact.study.quality_config import QualityConfig
from infact.study.settings_doc import BLOCKS, REPO, rows, write_blocks


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_documents_embed_the_generated_tables(block):
    text = (REPO / block.file).read_text(encoding="utf-8")
    assert block.current(text) == block.render(), (
        f"{block.file}: the {block.name} table is stale: run `python -m infact settings-doc --write`"
    )


def test_write_blocks_repairs_a_stale_table_and_keeps_the_rest(tmp_path):
    for file in {b.file for b in BLOCKS}:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text((REPO / file).read_text(encoding="utf-8"), encoding="utf-8")
    settings = tmp_path / "docs" / "settings.md"
    stale = settings.read_text(encoding="utf-8").replace("| `INFACT_DB` |", "| `INFACT_DATABASE` |")
    settings.write_text(stale, encoding="utf-8")
    assert write_blocks(tmp_path) == [settings]
    assert settings.read_text(encoding="utf-8") == (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
    assert write_blocks(tmp_path) == []


@pytest.mark.parametrize(
    "model, prefix", [(StudyConfig, ""), (PlatformConfig, "platform."), (QualityConfig, "quality.")]
)
def test_every_setting_has_a_description(model, prefix):
    missing = [key for key, _, meaning in rows(model, prefix) if not meaning.strip()]
    assert missing == []


def test_every_top_level_table_is_documented():
    keys = {key for key, _, _ in rows(StudyConfig)}
    for name in StudyConfig.model_fields:
        assert f"[{name}]" in keys or f"[[{name}]]" in keys or f"[{name}.NAME]" in keys


def test_every_deployment_setting_is_defined_once_with_help_and_default():
    names = [s.name for s in deployment.SETTINGS]
    assert len(names) == len(set(names))
    assert all(
        s.help.strip() and s.default.strip() and s.source in ("environment", "secrets") for s in deployment.SETTINGS
    )
