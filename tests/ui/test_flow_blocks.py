"""A ratings-then-pairwise `[flow]` study under AppTest (issue 29 item 9, "Mixed-protocol studies"):
each block shows its own instructions and short help, and a short screen says when the task changes."""

from __future__ import annotations

from infact.study.loader import load_study
from infact.study.protocol_config import INSTRUCTIONS, INTRO, RATING_HELP, SITUATION_HELP
from tests.support.app import give_consent, html_bodies, open_app, run, study_copy, walk_situations

MIXED = {
    "situations_per_participant = 10": "situations_per_participant = 3",
    "positions = [3, 8]": "positions = [2, 2]",
    '[platform]\nkind = "none"': '[flow]\nsteps = ["consent", "situation", "pairwise", "questionnaire", "done"]\n\n'
    '[protocol]\nkind = "pairwise"\n\n[platform]\nkind = "none"',
}


def expander_texts(at) -> str:
    return "\n".join(m.value for e in at.expander for m in e.markdown)


def test_each_block_has_its_own_instructions_and_a_screen_when_the_task_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    folder = study_copy(tmp_path, monkeypatch, toml=MIXED)
    rating_instructions = load_study(folder).config.texts.instructions
    at = give_consent(open_app())
    # The rating block: the rating help (it showed the pairwise one) and the study's own instructions.
    page = "".join(html_bodies(at))
    assert RATING_HELP in page and SITUATION_HELP["pairwise"] not in page
    assert rating_instructions in expander_texts(at)
    walk_situations(at)
    # The task changes: a short screen, nothing else of the next block yet.
    assert at.subheader[0].value == "Part 2 of 2"
    texts = [m.value for m in at.markdown]
    assert INTRO["pairwise"] in texts and INSTRUCTIONS["pairwise"] in texts
    assert not [r for r in at.radio if r.key and r.key.startswith("pairwise-")]
    at.button(key="block-intro-pairwise").click()
    run(at)
    # The pairwise block: its own help and instructions, not the rating ones.
    assert [c.value for c in at.caption][0] == SITUATION_HELP["pairwise"]
    reminder = expander_texts(at)
    assert INSTRUCTIONS["pairwise"] in reminder and rating_instructions not in reminder
    assert [r for r in at.radio if r.key and r.key.startswith("pairwise-")]
