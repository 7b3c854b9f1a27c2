"""Each built-in kind is one registration (infact/kinds/<name>.py) that reaches all it needs, under one name: its
step kind's, its page module's (infact/ui/steps/<name>.py), its protocol's and its table's — or the stated
mapping of infact/study/protocol_config.py and TABLE_OF below."""

from __future__ import annotations

import importlib

import pytest

import infact.kinds
from infact.participation import steps
from infact.study.protocol_config import PROTOCOLS, protocol_of, step_kind
from infact.ui import hooks
from tests.support.paths import REPO

BUILT_IN = [k.name for k in infact.kinds.SEQUENCE]
# The tables not named after their kind: named after what they hold (ratings, annotations: the file names
# researchers and CRSArena-Eval know), or shared (a dialog-level vote is a pairwise vote).
TABLE_OF = {"situation": "ratings", "conversation": "annotations", "pairwise_dialog": "pairwise"}
NO_SECTION = {"demographics"}  # its table is in Exports only


def test_the_sequence_is_the_registry_and_each_kind_has_its_file():
    assert steps.sequence() == tuple(BUILT_IN)
    for name in BUILT_IN:
        module = importlib.import_module(f"infact.kinds.{name}")
        assert module.KIND is steps.kind(name), f"infact/kinds/{name}.py holds the registration of {name}"
        assert (REPO / "infact" / "kinds" / f"{name}.py").is_file()


def test_loading_twice_registers_once():
    before = steps.sequence()
    infact.kinds.load_all()
    assert steps.sequence() == before


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_kind_s_page_is_the_ui_module_of_its_name(name):
    kind = steps.kind(name)
    assert kind.step.name == name
    assert kind.page == f"infact.ui.steps.{name}.page"
    assert callable(hooks.page(name))
    if kind.page_top is not None:
        assert kind.page_top == f"infact.ui.steps.{name}.page_top" and callable(hooks.page_top(name))


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_kind_with_a_table_registers_its_results_and_where_the_dashboard_shows_them(name):
    kind = steps.kind(name)
    if kind.step.schema is None:
        assert kind.results is None, f"{name} has no table, so no results"
        return
    assert kind.results is not None, f"{name}: a built-in kind declares its results"
    assert name in kind.results.steps
    for other in kind.results.steps:  # the kinds that fill one table share its one KindResults
        assert steps.kind(other).results is kind.results, f"{other} fills {kind.results.name} through another object"
    assert kind.results.name == kind.step.table == TABLE_OF.get(name, name)
    if name in NO_SECTION:
        assert kind.dashboard is None
    else:
        assert callable(hooks.dashboard(name))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_protocol_is_drawn_by_the_kind_of_its_name_except_rating(protocol):
    kind = step_kind(protocol)
    assert kind == ("situation" if protocol == "rating" else protocol)
    assert kind in steps.sequence() and protocol_of(kind) == protocol


def test_kinds_that_are_no_protocol_have_none():
    assert [k for k in BUILT_IN if protocol_of(k) is not None] == [step_kind(p) for p in PROTOCOLS]
    assert protocol_of("rating") is None, "rating is a protocol, not a step kind"


def test_a_registration_whose_names_differ_is_refused():
    with pytest.raises(ValueError, match="give them one name"):
        steps.Kind("stars", steps.get("consent"))


def test_a_hook_that_names_no_function_is_an_error_naming_the_path():
    with pytest.raises(LookupError, match="infact.ui.steps.nope.page"):
        hooks.resolve("infact.ui.steps.nope.page")


def test_an_empty_registry_says_what_to_import(monkeypatch):
    from infact.participation.steps import registry

    monkeypatch.setattr(registry, "_KINDS", {})
    with pytest.raises(LookupError, match="import infact.kinds"):
        steps.sequence()
