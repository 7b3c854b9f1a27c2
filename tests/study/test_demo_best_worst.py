"""data/demo-best-worst (issue 19, point 9): its own texts, validates, and bots complete it."""

from __future__ import annotations

from pathlib import Path

from infact.participation.bots import run_bots
from infact.results.study_results import StudyResults
from infact.stores.memory import MemoryStorage
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo-best-worst"


def test_the_best_worst_demo_has_its_own_texts():
    cfg = load_study(DEMO).config
    assert cfg.protocol.kind == "best_worst" and cfg.protocol.set_size == 4
    pairwise = load_study(REPO / "data" / "demo-pairwise").config
    for name in ("welcome", "instructions", "situation_help", "privacy"):
        assert getattr(cfg.texts, name) != getattr(pairwise.texts, name), name
    words = f"{cfg.texts.welcome} {cfg.texts.instructions} {cfg.texts.situation_help}".lower()
    assert "best" in words and "worst" in words
    assert "four" in cfg.texts.instructions.lower() and "two responses" not in words  # four, not a pair
    assert "THIS response as the best one" in cfg.protocol.attention_text


def test_bots_complete_the_best_worst_demo_and_its_choices_are_tabled():
    study = load_study(DEMO)
    storage = MemoryStorage()
    results = run_bots(study, storage, 12, strategy="attentive", seed=3)
    assert sum(r.completed for r in results) == 12
    t = StudyResults(study, storage.records(study=study.id)).tables
    choices = t.compare["best_worst.csv"]
    assert len(choices) == 12 * (study.config.study.situations_per_participant - 1)
    assert set("|".join(choices["systems"]).split("|")) == set(study.systems)
    best = choices["best"].value_counts()
    assert best.idxmax() == "Shelf" and choices["worst"].value_counts().idxmax() == "Dustjacket"
