"""infact/hookspecs.py lists every extension point of a kind once, as a signature with a docstring, and each is
what the code calls (Datasette's hookspecs.py): a step hook is a `StepKind` method with the same parameters, a
results hook a `KindResults` field, a UI hook a `Kind` field (a dotted path)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from infact import hookspecs
from infact.participation.steps import Kind, StepKind
from infact.results.kinds import KindResults

SPECS = [
    (name, obj)
    for name, obj in vars(hookspecs).items()
    if inspect.isfunction(obj) and obj.__module__ == hookspecs.__name__
]


def test_every_extension_point_is_listed_once_in_one_of_the_three_halves():
    listed = (*hookspecs.STEP_HOOKS, *hookspecs.RESULTS_HOOKS, *hookspecs.UI_HOOKS)
    assert len(listed) == len(set(listed)), "a hook listed twice"
    assert sorted(listed) == sorted(name for name, _ in SPECS)


@pytest.mark.parametrize(("name", "spec"), SPECS, ids=[n for n, _ in SPECS])
def test_each_extension_point_has_a_signature_and_a_docstring(name, spec):
    doc = inspect.getdoc(spec) or ""
    assert len(doc.split()) >= 8, f"{name}: say what it is for"
    assert inspect.signature(spec).parameters, f"{name}: its arguments are part of the contract"


@pytest.mark.parametrize("name", hookspecs.STEP_HOOKS)
def test_a_step_hook_is_a_step_kind_method_with_the_same_parameters(name):
    method = getattr(StepKind, name)
    params = list(inspect.signature(method).parameters)[1:]  # without self
    assert params == list(inspect.signature(getattr(hookspecs, name)).parameters)


def test_the_results_hooks_are_the_callable_fields_of_kind_results():
    callables = {f.name for f in dataclasses.fields(KindResults) if "Callable" in str(f.type)}
    assert callables == set(hookspecs.RESULTS_HOOKS)


def test_the_ui_hooks_are_the_dotted_paths_of_a_kind():
    paths = {f.name for f in dataclasses.fields(Kind) if f.name not in ("name", "step", "results")}
    assert paths == set(hookspecs.UI_HOOKS)


def test_a_spec_that_loses_its_docstring_is_found():
    """The check can fail: a hook without a docstring says nothing."""

    def bare(table):
        pass

    assert not (inspect.getdoc(bare) or "").split()
