"""The optional free-text comment at the end of the questionnaire (issue 11 item 5):
configured in study.toml, optional to answer, length-capped, stored with the
questionnaire record and exported in questionnaire.csv as item `comment`."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.errors import ConfigError
from infact.participation.flow import Flow
from infact.results.export import export_bytes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage, TinyDBStorage
from infact.study.loader import load_study, parse_config
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.studies import FakeClock, answers_for, make_study, study_config, to_toml, walk


def comment_study(tmp_path, **comment):
    return load_study(
        make_study(
            tmp_path,
            n_situations=4,
            per_participant=2,
            attention_check={"positions": [1, 2]},
            questionnaire={"comment": {"enabled": True, **comment}},
        )
    )


def at_questionnaire(study, storage=None):
    flow = Flow(study, storage or MemoryStorage(), clock=FakeClock())
    token = flow.arrive({})
    walk(flow, token, until="questionnaire")
    return flow, token, answers_for(study, flow.current(flow.state(token)))


def test_off_by_default_on_in_the_demo_with_a_default_question():
    default = parse_config(to_toml(study_config()))
    assert default.questionnaire.comment.enabled is False
    assert default.questionnaire.comment.question.endswith("(optional)")
    demo = load_study(DEMO_STUDY).config.questionnaire.comment
    assert demo.enabled is True and demo.max_chars == 1000


def test_an_item_named_comment_clashes_with_the_comment(tmp_path):
    cfg = study_config(questionnaire={"comment": {"enabled": True}, "items": [{"id": "comment", "text": "Anything?"}]})
    with pytest.raises(ConfigError, match="clashes with the free-text comment"):
        parse_config(to_toml(cfg))


def test_the_comment_is_stored_trimmed_with_the_questionnaire(tmp_path):
    flow, token, answers = at_questionnaire(comment_study(tmp_path))
    assert flow.submit(token, "questionnaire", dict(answers, comment="  Response B was rude.\n")).ok
    [rec] = flow.storage.records(participant=token, kind="questionnaire")
    assert rec["comment"] == "Response B was rude."
    assert set(rec["answers"]) == {i.id for i in flow.cfg.questionnaire.items}


@pytest.mark.parametrize("given", [None, "", "   \n"])
def test_the_comment_is_optional(tmp_path, given):
    flow, token, answers = at_questionnaire(comment_study(tmp_path))
    if given is not None:
        answers["comment"] = given
    assert flow.submit(token, "questionnaire", answers).ok
    [rec] = flow.storage.records(participant=token, kind="questionnaire")
    assert rec["comment"] is None


def test_a_too_long_comment_is_refused_and_nothing_is_stored(tmp_path):
    flow, token, answers = at_questionnaire(comment_study(tmp_path, max_chars=20))
    result = flow.submit(token, "questionnaire", dict(answers, comment="x" * 21))
    assert not result.ok
    assert result.errors == ("Please shorten your comment to at most 20 characters (it has 21).",)
    assert flow.storage.records(participant=token, kind="questionnaire") == []
    assert flow.submit(token, "questionnaire", dict(answers, comment="x" * 20)).ok


def test_a_disabled_comment_is_not_stored(tmp_path):
    study = load_study(make_study(tmp_path, n_situations=4, per_participant=2, attention_check={"positions": [1, 2]}))
    flow, token, answers = at_questionnaire(study)
    assert flow.submit(token, "questionnaire", dict(answers, comment="ignored")).ok
    [rec] = flow.storage.records(participant=token, kind="questionnaire")
    assert "comment" not in rec


def test_questionnaire_csv_has_the_comment_as_its_own_item(tmp_path):
    study = comment_study(tmp_path)
    flow, token, answers = at_questionnaire(study)
    flow.submit(token, "questionnaire", dict(answers, comment='Loved "Heat (1995)", tell me more'))
    walk(flow, token)
    other = flow.arrive({})
    walk(flow, other)  # answers without a comment: no comment row
    csv = pd.read_csv(io.BytesIO(export_bytes(StudyResults(study, flow.storage.records()).tables)["questionnaire.csv"]))
    comments = csv[csv["item"] == "comment"]
    assert comments[["participant", "answer"]].values.tolist() == [[token, 'Loved "Heat (1995)", tell me more']]
    assert comments["value"].isna().all()
    rated = csv[csv["item"] != "comment"]
    assert len(rated) == 2 * len(study.config.questionnaire.items) and rated["value"].notna().all()


def test_the_page_offers_the_comment_box_and_stores_it(tmp_path, monkeypatch):
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    study = load_study(DEMO_STUDY)
    flow, token, answers = at_questionnaire(study, TinyDBStorage(db))
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.query_params["p"] = token
    at.run()
    box = at.text_area(key="q-comment")
    assert box.label == study.config.questionnaire.comment.question
    assert box.proto.max_chars == 1000
    for item in study.config.questionnaire.items:
        at.radio(key=f"q-{item.id}").set_value(answers[item.id])
    box.input("The second response often ignored me.")
    at.button(key="submit-questionnaire").click()
    at.run()
    assert not at.exception and not at.error
    [rec] = TinyDBStorage(db).records(participant=token, kind="questionnaire")
    assert rec["comment"] == "The second response often ignored me."


def test_the_questionnaire_chart_leaves_the_free_text_out():
    from infact.results.reports.charts import questionnaire_chart

    long = pd.DataFrame(
        {
            "participant": ["a", "a", "b"],
            "item": ["natural", "comment", "natural"],
            "value": [4, None, 2],
            "answer": ["Agree", "Too long a study", "Disagree"],
        }
    )
    data = questionnaire_chart(long).data
    assert set(data["item"]) == {"natural"} and set(data["answer"]) == {"Agree", "Disagree"}
