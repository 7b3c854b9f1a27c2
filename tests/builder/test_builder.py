"""The builder's library (infact/builder): a form generated from the settings models, a study folder from an
uploaded table, every problem at once, systems renamed, the zip, and a save that never replaces unasked."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from pydantic import BaseModel, Field, create_model

from infact.builder import fields as form
from infact.builder import folder as build
from infact.errors import DatasetError, InfactError
from infact.study.config import StudyConfig
from infact.study.loader import load_study
from tests.support.paths import REPO

TABLE = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"


def _read():
    return build.read_upload("movie_dialogs.csv", TABLE.read_bytes())


def test_a_setting_added_to_a_model_appears_in_the_form_without_builder_code():
    section = create_model(
        "NewSection",
        __base__=BaseModel,
        reminder_minutes=(int, Field(5, ge=1, le=60, description="Remind the participant after this long.")),
        tone=(str, Field("friendly", description="Tone of the reminder (Markdown).")),
    )
    model = create_model("Config", __base__=BaseModel, reminders=(section, Field(default_factory=section)))
    sections, elsewhere = form.form_sections(model)
    assert not elsewhere
    (spec, tone) = sections[0].fields
    assert (spec.key, spec.kind, spec.default, spec.minimum, spec.maximum) == (
        "reminders.reminder_minutes",
        "int",
        5,
        1,
        60,
    )
    assert spec.description == "Remind the participant after this long."
    assert (tone.kind, tone.default) == ("longtext", "friendly")


def test_every_setting_of_study_toml_is_a_field_or_named_as_edited_in_study_toml():
    sections, elsewhere = form.form_sections()
    shown = {s.name for s in sections}
    assert shown | set(elsewhere) == set(StudyConfig.model_fields)
    for section in sections:
        model_fields = (
            set(StudyConfig.model_fields[section.name].annotation.__args__[0].model_fields) if section.rows else None
        )
        names = {f.name for f in section.fields} | {k.split(".", 1)[1] for k in section.elsewhere}
        if model_fields is not None:
            assert names == model_fields
    assert [s.name for s in sections[: len(form.MAIN)]] == list(form.MAIN)
    by_key = {f.key: f for s in sections for f in s.fields}
    assert by_key["platform.kind"].kind == "choice" and "prolific" in by_key["platform.kind"].choices
    assert by_key["study.situations_per_participant"].maximum == 100


def test_an_upload_too_large_or_not_a_table_is_refused_by_name():
    with pytest.raises(DatasetError) as exc:
        build.read_upload("big.csv", b"x" * 2000, limit=1000)
    assert "big.csv" in str(exc.value) and "infact import table" in str(exc.value)
    with pytest.raises(DatasetError) as exc:
        build.read_upload("dialogs.exe", b"a,b\n1,2\n")
    assert "dialogs.exe" in str(exc.value) and "csv" in str(exc.value)


def test_bad_rows_are_named_by_the_researchers_file_not_a_temporary_copy():
    data = TABLE.read_bytes() + b'm99,"User: hi",,,\n'
    read = build.read_upload("../../etc/my dialogs.csv", data)
    assert read.file == "my dialogs.csv"
    assert read.problems and all(p.file == "my dialogs.csv" for p in read.problems)
    assert len(read.situations) == len(_read().situations)


def test_a_csv_becomes_a_study_that_loads_ratings_and_pairwise(tmp_path):
    for protocol in ("ratings", "pairwise"):
        draft = build.start(protocol, _read(), f"movies-{protocol}")
        built = build.check(build.build(draft, build.prefill(draft)), draft.study_id)
        assert built.errors == [] and built.study is not None
        assert built.study.config.protocol.kind == {"ratings": "rating", "pairwise": "pairwise"}[protocol]
        assert built.study.systems == ["MovieBot", "CineLLM", "Baseline"]


def test_the_default_id_names_the_table_and_protocol_so_variants_never_share_one():
    assert build.start("ratings", _read()).study_id == "movie-dialogs-ratings"
    assert build.start("pairwise", _read()).study_id == "movie-dialogs-pairwise"
    assert build.start("pairwise", None).study_id == "my-pairwise-study"


def test_every_problem_at_once_named_by_its_key():
    draft = build.start("ratings", _read())
    values = build.prefill(draft)
    values["study"] = {**values["study"], "situations_per_participant": 500}
    values["platform"] = {**values["platform"], "kind": "prolific"}
    built = build.check(build.build(draft, values), "my-study")
    text = "\n".join(str(p) for p in built.errors)
    assert built.study is None
    assert "situations_per_participant" in text and "completion_code" in text
    assert "infact-builder" not in text  # the temporary folder is never shown


def test_systems_are_renamed_in_the_situations_or_refused():
    draft = build.start("pairwise", _read())
    values = build.prefill(draft)
    values["study"] = {**values["study"], "systems": ["A", "B", "C"]}
    files = build.build(draft, values)
    rows = [json.loads(line) for line in files["situations.jsonl"].decode().splitlines()]
    assert all(set(r["responses"]) <= {"A", "B", "C"} for r in rows)
    assert build.check(files).errors == []
    values["study"]["systems"] = ["A", "B"]
    with pytest.raises(InfactError) as exc:
        build.build(draft, values)
    assert "study.systems" in str(exc.value) and "MovieBot" in str(exc.value)


def test_only_changed_values_are_written_so_protocol_texts_stay_the_protocols():
    draft = build.start("pairwise", _read())
    values = build.prefill(draft)
    values["texts"] = {**values["texts"], "completion": "Thanks, movie fans!"}
    toml = build.build(draft, values)["study.toml"].decode()
    assert 'completion = "Thanks, movie fans!"' in toml
    assert "instructions" not in toml and "situation_help" not in toml


def test_the_zip_holds_the_folder():
    draft = build.start("ratings", _read(), "movies")
    files = build.build(draft, build.prefill(draft))
    with zipfile.ZipFile(io.BytesIO(build.zip_bytes(files, "movies"))) as zf:
        assert sorted(zf.namelist()) == ["movies/situations.jsonl", "movies/study.toml"]
        assert zf.read("movies/study.toml") == files["study.toml"]


def test_save_asks_before_replacing_and_keeps_what_it_replaces(tmp_path):
    draft = build.start("ratings", _read(), "movies")
    files = build.build(draft, build.prefill(draft))
    target = tmp_path / "movies"
    target.mkdir()
    (target / "study.toml").write_text("# mine\n")
    (target / "notes.md").write_text("keep me\n")
    assert build.clashes(target, files) == ["study.toml"]
    with pytest.raises(InfactError):
        build.save(target, files)
    assert (target / "study.toml").read_text() == "# mine\n"
    build.save(target, files, replace=True)
    assert load_study(target).id == "movies"
    (backup,) = target.glob("study.toml.bak-*")
    assert backup.read_text() == "# mine\n" and (target / "notes.md").read_text() == "keep me\n"


def test_the_preview_participant_walks_every_page_in_memory():
    draft = build.start("pairwise", _read())
    study = build.check(build.build(draft, build.prefill(draft))).study
    flow, progress = build.preview_run(study)
    kinds = [s.kind for s in progress.steps]
    assert kinds[0] == "consent" and "pairwise" in kinds and kinds[-1] == "done"
    assert progress.state.preview


def test_an_upload_is_read_as_text_and_drawn_escaped():
    from infact.text.display import response_html

    rows = TABLE.read_text(encoding="utf-8").splitlines(keepends=True)
    hostile = 'h01,"User: hi<img src=x onerror=alert(1)>","<script>alert(1)</script>","=HYPERLINK(""http://x"")",ok\n'
    read = build.read_upload("dialogs.csv", "".join(rows).encode() + hostile.encode())
    (situation,) = [s for s in read.situations if s.dialog_id == "h01"]
    assert situation.responses["MovieBot"] == "<script>alert(1)</script>"
    assert situation.responses["CineLLM"] == '=HYPERLINK("http://x")'
    html = response_html("A", situation.responses["MovieBot"])
    assert "<script>" not in html and "&lt;script&gt;" in html
