"""Docs cannot drift from the code: every setting is in the README, as generated."""

from pathlib import Path

from infact.study.settings_doc import BEGIN, END, block, rows
from infact.study.config import StudyConfig

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_embeds_the_generated_settings_reference():
    text = README.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    assert text[start:end] == block(), "README settings reference is stale: run `python -m infact settings-doc` and paste it"


def test_every_setting_has_a_description():
    missing = [key for key, _, meaning in rows(StudyConfig) if not meaning.strip()]
    assert missing == []


def test_every_top_level_table_is_documented():
    keys = {key for key, _, _ in rows(StudyConfig)}
    for name in StudyConfig.model_fields:
        assert f"[{name}]" in keys or f"[[{name}]]" in keys
