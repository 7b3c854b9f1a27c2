"""Small study folders for the core's behaviour tests, and walking a study through the core.

The folder writers (`make_study`, `copy_study`, `edit_toml`, …) are simulations/study_folders.py, shared with
bench/; they are imported here so that a test finds every study helper in one module. Here: a `FakeClock`,
`answers_for` and `walk` (a participant through a Flow), `parse_section` (one section of study.toml).
"""

from __future__ import annotations

from datetime import UTC

from simulations.study_folders import (  # noqa: F401 — re-exported: the tests' one place for study helpers
    CHECK_ID,
    TEXTS,
    copy_study,
    edit_toml,
    make_study,
    situation,
    study_config,
    to_toml,
    write_toml,
)


def pairwise_with_two_conditions(folder):
    """The demo pairwise study copied to `folder` with two between-subjects conditions, "short" and "long", that
    differ only in their instructions; the folder."""
    from tests.support.paths import REPO

    folder = copy_study(REPO / "data" / "demo-pairwise", folder)
    text = (folder / "study.toml").read_text()
    text += (
        '\n[conditions.short.texts]\ninstructions = "Pick."\n[conditions.long.texts]\ninstructions = "Read, pick."\n'
    )
    (folder / "study.toml").write_text(text)
    return folder


class FakeClock:
    """A clock that moves only when told to (Flow(clock=...))."""

    def __init__(self, start=None):
        from datetime import datetime

        self.now = start or datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.now += timedelta(seconds=seconds)


def answers_for(study, step, *, rating: int = 4, fail_check: bool = False) -> dict:
    """Valid answers for any step: `rating` everywhere, the instructed rating on the check."""
    cfg = study.config
    if step.kind == "consent":
        return {"consent": True}
    if step.kind == "situation":
        labels = cfg.scale.labels
        expected = labels.index(cfg.attention_check.expected[0]) + 1
        out = {}
        for system in step.order:
            instructed = step.attention_check and system == step.instructed_system
            value = rating
            if instructed:
                value = next(v for v in range(len(labels), 0, -1) if v != expected) if fail_check else expected
            out[system] = {c.id: value for c in cfg.criteria}
        return {"ratings": out}
    if step.kind == "questionnaire":
        scale = cfg.questionnaire.scale
        return {i.id: (i.expected if i.expected is not None else scale[-2]) for i in cfg.questionnaire.items}
    if step.kind == "demographics":
        return {d.id: d.options[0] for d in cfg.demographics}
    raise ValueError(step)


def walk(flow, token: str, *, until: str | None = None, seconds: float = 20.0, fail_check: bool = False) -> None:
    """Play a participant from where they are to the end, or up to (not including) step `until`."""
    clock = flow.clock
    for _ in range(100):
        st = flow.state(token)
        step = flow.current(st)
        if step.kind == "done" or step.name == until:
            return
        flow.mark_shown(st, step)
        if hasattr(clock, "advance"):
            clock.advance(seconds)
        result = flow.submit(token, step.name, answers_for(flow.study, step, fail_check=fail_check))
        assert result.ok and result.stored, (step, result)
    raise AssertionError("the study did not end")


def parse_section(section: str, table: dict | None, file: str = "study.toml"):
    """A minimal study.toml with one section, parsed by the one config loader (errors as ConfigError)."""
    from infact.study.loader import parse_config

    config = {"study": {"id": "t", "title": "T", "systems": ["A"]}, "texts": TEXTS}
    if table:
        config[section] = table
    return parse_config(to_toml(config), file)
