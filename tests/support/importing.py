"""Shared by the importer tests (a module, not conftest: `conftest` names two modules in a full run)."""

from __future__ import annotations

from pathlib import Path

IMPORT_FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"


def situations_by_id(folder: Path) -> dict:
    from infact.study.situations import load_situations

    return {s.situation_id: s for s in load_situations([folder / "situations.jsonl"])}
