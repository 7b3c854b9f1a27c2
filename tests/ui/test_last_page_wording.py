"""The last page's words under AppTest (issue 29, item 9 "Wording"): a screen-out is not called a
completion, and a finished study says "saved" once."""

from __future__ import annotations

from pathlib import Path

from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_app, study_copy

REPO = Path(__file__).resolve().parents[2]


def page_text(at) -> str:
    """Every text the participant reads on the page (boxes, markdown, code, captions)."""
    parts = [e.value for kind in ("success", "warning", "info", "markdown", "caption", "code") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


def finished(study_dir: Path, db: Path, strategy: str, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    (bot,) = run_bots(load_study(study_dir), TinyDBStorage(db), 1, strategy=strategy, seed=4)
    assert bot.completed, bot
    return bot, open_app({"p": bot.token})


def test_a_screen_out_without_a_platform_does_not_read_like_a_completion(tmp_path, monkeypatch):
    folder = study_copy(
        tmp_path, monkeypatch, toml={'on_attention_fail = "continue"': 'on_attention_fail = "screen_out"'}
    )
    bot, at = finished(folder, tmp_path / "db", "fails-attention", monkeypatch)
    assert bot.outcome == "screened_out"
    text = page_text(at)
    assert "completion code" not in text.lower(), text
    assert "ended early" in text and bot.completion_code in text  # the code is still given, as a participant code


def test_a_finished_conversation_study_says_saved_once(tmp_path, monkeypatch):
    _, at = finished(REPO / "data" / "demo-conversations", tmp_path / "db", "attentive", monkeypatch)
    text = page_text(at)
    assert "Your completion code" in text
    assert text.lower().count("saved") == 1, text
