"""A study made by `infact new --from` runs at once (issue 40, "done when"): under AppTest a participant walks
the ratings study made from six dialogs to its completion code, and the pairwise variant shows its own task."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from infact.study.protocol_config import OWN_INSTRUCTIONS, SITUATION_HELP
from tests.support.app import finish, give_consent, html_bodies, open_app, records, shown_code, token_of
from tests.support.paths import REPO

DIALOGS = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"


@pytest.mark.slow  # a whole participant through the app: about 3 s on a quiet machine
def test_a_participant_completes_the_study_made_from_six_dialogs(store, tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    assert main(["new", str(folder), "--from", str(DIALOGS)]) == 0
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    at = give_consent(open_app())
    page = "".join(html_bodies(at))
    assert any(w in page for w in ("funny movie", "scary", "space movie", "animated", "detective", "romantic"))
    at = finish(at)
    token = token_of(at)
    [complete] = records(store, participant=token, kind="complete")
    assert complete["outcome"] == "completed" and shown_code(at) == complete["completion_code"]
    rated = {r["situation_id"] for r in records(store, participant=token) if r.get("situation_id")}
    assert rated == {"m01-t3", "m02-t1", "m03-t3", "m04-t3", "m05-t1", "m06-t3"}  # five rated, m01 the check


def test_the_pairwise_variant_shows_two_responses_and_its_own_instructions(store, tmp_path, monkeypatch):
    folder = tmp_path / "mine-pairwise"
    assert main(["new", str(folder), "--protocol", "pairwise", "--from", str(DIALOGS)]) == 0
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    at = open_app()
    assert any(OWN_INSTRUCTIONS["pairwise"] in m.value for m in at.markdown)
    at = give_consent(at)
    assert [c.value for c in at.caption][0] == SITUATION_HELP["pairwise"]
    assert [r for r in at.radio if r.key and r.key.startswith("pairwise-")]
