"""The registry of kinds of answer: the built-in ones (builtin_kinds.py), any registered later, and the
defaults of a step kind that declares a table nobody registered. What a kind is: hookspecs.py.
"""

from __future__ import annotations

from infact.errors import OptionError
from infact.participation import steps as step_kinds
from infact.results.builtin_kinds import BUILT_IN
from infact.results.hookspecs import Answers, KindResults, describe, summary, with_excluded
from infact.results.tables.schemas import OPTIONAL_TABLES, STUDY_TABLES
from infact.study.protocol_config import STEP_KIND_OF
from infact.study.settings_doc import Block
from infact.table_schema import TableSchema

__all__ = [
    "Answers",
    "KindResults",
    "all_schemas",
    "compared_tables",
    "describe",
    "for_file",
    "for_step",
    "for_table",
    "kinds",
    "register",
    "schema_for",
    "summary",
]

_REGISTERED: dict[str, KindResults] = {}


def register(kind: KindResults) -> KindResults:
    """Add a kind of answer (its table's name is its key)."""
    if kind.name in _REGISTERED:
        raise ValueError(f"results of {kind.name!r} are already registered")
    _REGISTERED[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def kinds() -> list[KindResults]:
    """Every kind of answer, in the order a participant meets its steps: the registered ones, and the
    defaults of any step kind that declares a table nobody registered (a new kind's, a test's)."""
    out: dict[str, KindResults] = {}
    for step in step_kinds.kinds():
        schema = step.schema
        if schema is None or schema.name in out:
            continue
        registered = _REGISTERED.get(schema.name)
        out[schema.name] = registered or KindResults(with_excluded(schema), (step.name,), section=schema.name)
    for name, kind in _REGISTERED.items():
        out.setdefault(name, kind)
    return list(out.values())


def for_table(name: str) -> KindResults:
    """The kind whose table is `name` (`pairwise` or `pairwise.csv`); an error naming the known ones."""
    name = name.removesuffix(".csv")
    found = {k.name: k for k in kinds()}
    if name not in found:
        raise OptionError("kind", f"no table kind {name!r}; the declared ones are {', '.join(found)}", key=name)
    return found[name]


def for_file(path: str, kind: str | None = None) -> KindResults:
    """The declared kind of a table file: `kind` when given (`analyze --kind`), else the file's name
    (`pairwise.csv`, `study-pairwise.csv`); a file named after no table is read as ratings."""
    from pathlib import Path

    if kind:
        return for_table(kind)
    stem = Path(path).name.removesuffix(".csv")
    found = {k.name: k for k in kinds()}
    named = [k for n, k in found.items() if stem == n or stem.endswith(("-" + n, "_" + n))]
    return max(named, key=lambda k: len(k.name)) if named else found["ratings"]


def for_step(step: str) -> KindResults | None:
    """The kind whose table a step kind's records fill (or a [flow] block's: `rating` is the situation kind)."""
    step = STEP_KIND_OF.get(step, step)
    return next((k for k in kinds() if step in k.steps), None)


def compared_tables(tables, *, judged: bool = False) -> list[tuple[KindResults, object]]:
    """(kind, table) of every kind whose answers can be set beside a judge's (its hooks `compared_as` and
    `prepare`; with `judged`, only those a judge file is compared with: its `judged`) whose table in
    `tables` (a study's `Tables`, or anything with `compare` by file and the every-study kinds by name) has
    rows: the kinds beyond every study's first (votes, choices, annotations), then those (ratings)."""
    out = []
    for kind in sorted((k for k in kinds() if k.compared), key=lambda k: k.always):  # stable: flow order kept
        frame = _frame_of(tables, kind)
        if (kind.judged or not judged) and frame is not None and len(frame):
            out.append((kind, frame))
    return out


def _frame_of(tables, kind: KindResults):
    by_kind = getattr(tables, "by_kind", None)
    if by_kind is not None:
        return by_kind.get(kind.name)
    if kind.always:  # Tables.ratings, .questionnaire, …
        return getattr(tables, kind.name, None)
    return (getattr(tables, "compare", None) or {}).get(kind.schema.file)


def all_schemas() -> dict[str, TableSchema]:
    """file name -> schema of every table an export can hold: every kind's, its extra tables, the study's."""
    out = {}
    for kind in kinds():
        out.update({s.file: s for s in (kind.schema, *kind.extra_tables)})
    return {**out, **{s.file: s for s in (*STUDY_TABLES, *OPTIONAL_TABLES)}}


def schema_for(file: str) -> TableSchema | None:
    return all_schemas().get(file)


def data_model_markdown() -> str:
    """docs/data-model.md's generated column tables, one per exported CSV (kinds first, in flow order)."""
    return "\n".join(schema.markdown() for schema in all_schemas().values())


# The column tables in docs/data-model.md (`infact settings-doc --write` rewrites them; a test checks they are current).
DATA_MODEL_BLOCK = Block("table-columns", "docs/data-model.md", data_model_markdown)

for _kind in BUILT_IN:
    register(_kind)
