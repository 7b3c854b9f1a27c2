"""The message catalogue (infact/text/catalogue.py): in step with the code, complete in every language,
plural forms, numbers, direction, and a study's own texts left as written (issue 41, item 1)."""

from __future__ import annotations

import re

import pytest

from infact.study.loader import load_study, validate_study
from infact.text import catalogue
from infact.text.extract import problems, read
from infact.text.study_texts import overrides
from tests.support.paths import REPO
from tests.support.studies import copy_study

PLACEHOLDER = re.compile(r"\{(\w*)\}")
LABELS = '["ganz schlecht", "Meaningless", "mittel", "gut", "sehr gut"]'
LABELS = '["ganz schlecht", "Meaningless", "mittel", "gut", "sehr gut"]'
BUNDLED = [code for code in catalogue.LANGUAGES if code != catalogue.SOURCE]


@pytest.fixture
def language():
    yield catalogue.use
    catalogue.use(catalogue.SOURCE)


def test_the_template_matches_the_code_and_every_language_translates_every_string():
    assert problems() == []


@pytest.mark.parametrize("code", BUNDLED)
def test_a_translation_keeps_the_placeholders_of_its_message(code):
    """A dropped `{n}` loses a number; an added one raises KeyError on the participant's page."""
    wrong = []
    for m in read(catalogue.po_path(code), code):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        need = set(PLACEHOLDER.findall(ids[-1]))
        for s in strings:
            got = set(PLACEHOLDER.findall(s))
            # a singular form may leave out {n} ("one message"); it must never bring a name of its own
            if got - need or (len(strings) == 1 and need - got):
                wrong.append((m.id, s))
    assert wrong == []


def test_plural_forms_follow_the_language(language):
    one, many = "{sent} of at most {n} message sent.", "{sent} of at most {n} messages sent."
    language("de")
    assert catalogue.ngettext(one, many, 1) == "{sent} von höchstens {n} Nachricht gesendet."
    assert catalogue.ngettext(one, many, 5) == "{sent} von höchstens {n} Nachrichten gesendet."
    language("ar")  # six forms: 0, 1, 2, 3–10, 11–99, 100+
    forms = [catalogue.ngettext(one, many, n) for n in (1, 2, 3, 11)]
    assert len(set(forms)) == 4  # one, two, few (3–10: رسائل) and many (11–99: رسالة) each their own
    assert "رسالة واحدة" in catalogue.ngettext(one, many, 1)
    assert "رسالتين" in catalogue.ngettext(one, many, 2)
    language("zh-Hans")
    assert catalogue.ngettext(one, many, 1) == catalogue.ngettext(one, many, 7)


def test_numbers_and_dates_are_written_as_the_language_writes_them(language):
    from datetime import date

    language("de")
    assert catalogue.number(1234.5) == "1.234,5"
    assert catalogue.day(date(2026, 12, 4)) == "04.12.2026"
    language("fr")
    assert catalogue.number(1234.5) == "1\u202f234,5"
    language("en")
    assert catalogue.number(1234.5) == "1,234.5"


def test_arabic_is_drawn_right_to_left_and_the_others_left_to_right(language):
    from infact.text.display import RTL_CSS, page_css

    language("ar")
    assert catalogue.direction() == "rtl" and RTL_CSS in page_css()
    for code in ("en", "de", "zh-Hans", catalogue.PSEUDO):
        language(code)
        assert catalogue.direction() == "ltr" and RTL_CSS not in page_css()


def test_a_text_that_is_not_in_the_catalogue_is_shown_as_written(language):
    language("de")
    assert catalogue._("Submit and continue") == "Absenden und weiter"
    assert catalogue._("Bitte lesen Sie den Dialog.") == "Bitte lesen Sie den Dialog."
    language(catalogue.PSEUDO)
    assert catalogue._("Submit and continue") == "⟦Submit and continue⟧"
    assert catalogue._("The researcher's own welcome") == "The researcher's own welcome"


def test_an_unknown_language_is_refused_with_the_bundled_ones_named(tmp_path):
    folder = copy_study(REPO / "data" / "demo", tmp_path / "demo", {"[study]\n": '[study]\nlanguage = "klingon"\n'})
    _study, errors, _notes = validate_study(folder)
    text = "\n".join(str(e) for e in errors)
    assert "study.toml" in text and "language" in text and "'de'" in text and "'ar'" in text, text


def test_validate_names_the_catalogue_strings_a_study_replaces(tmp_path, capsys):
    from infact.cli.main import main

    assert overrides(load_study(REPO / "data" / "demo-de").config) == ["texts.consent", "texts.completion"]
    folder = copy_study(
        REPO / "data" / "demo-de",
        tmp_path / "de",
        {'[platform]\nkind = "none"': '[platform]\nkind = "none"\n\n[scale]\nlabels = ' + LABELS},
    )
    assert main(["validate", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "language de (Deutsch)" in out
    # "Meaningless" is the default label (the attention check names it): still a catalogue string
    assert "6 catalogue string(s) replaced by the study's own text" in out
    assert "scale.labels[0], scale.labels[2], scale.labels[3], scale.labels[4]" in out
