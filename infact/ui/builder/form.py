"""The builder's form widgets: one per generated field (infact/builder/fields.py), keyed by the form's id
(protocol and table) and the setting, so each keeps its own values; each returns the value as study.toml holds it."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from infact.builder import fields as form
from infact.errors import Problem

KEY = "builder"  # every widget's key starts with it


def _key(form_id: str, spec_key: str) -> str:
    return f"{KEY}:{form_id}:{spec_key}"


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _numbers(spec: form.FieldSpec, text: str, problems: list[Problem]) -> list | None:
    try:
        return [float(x) if spec.kind == "float" else int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        problems.append(Problem("form", f"{spec.key}: write whole numbers separated by commas, e.g. 3, 9"))
        return None


def field_widget(spec: form.FieldSpec, value: Any, key: str, problems: list[Problem]) -> Any:
    """Draw one generated field with its description as help; return its value as study.toml holds it."""
    label, help_ = spec.name.replace("_", " "), spec.description or None
    if spec.kind == "bool":
        return st.checkbox(label, value=bool(value), key=key, help=help_)
    if spec.kind in ("int", "float"):
        number = int if spec.kind == "int" else float
        return st.number_input(
            label,
            value=None if value is None else number(value),
            min_value=None if spec.minimum is None else number(spec.minimum),
            max_value=None if spec.maximum is None else number(spec.maximum),
            step=1 if spec.kind == "int" else None,
            key=key,
            help=help_,
        )
    if spec.kind == "choice":
        options = list(spec.choices) + ([None] if spec.optional else [])
        return st.selectbox(label, options, index=options.index(value) if value in options else 0, key=key, help=help_)
    if spec.kind == "lines":
        return _lines(st.text_area(label, "\n".join(value or []), key=key, help=f"One per line. {help_ or ''}"))
    if spec.kind == "numbers":
        text = st.text_input(label, ", ".join(str(v) for v in value or []), key=key, help=help_)
        return _numbers(spec, text, problems)
    draw = st.text_area if spec.kind == "longtext" else st.text_input
    text = draw(label, value or "", key=key, help=help_)
    return None if spec.optional and not text.strip() else text


def rows_widget(section: form.Section, rows: list[dict], key: str) -> list[dict]:
    """An array of tables (`[[criteria]]`, …) as an editable table; list fields as `a | b | c`."""
    lists = {s.name for s in section.fields if s.kind in ("lines", "numbers")}
    names = [s.name for s in section.fields]
    shown = pd.DataFrame(
        [{n: (" | ".join(map(str, r.get(n) or [])) if n in lists else r.get(n)) for n in names} for r in rows],
        columns=names,
    )
    edited = st.data_editor(shown, num_rows="dynamic", key=key, width="stretch", hide_index=True)
    out = []
    for record in edited.to_dict("records"):
        row = {}
        for n, v in record.items():
            if v is None or (isinstance(v, float) and pd.isna(v)) or v == "":
                continue
            row[n] = [x.strip() for x in str(v).split("|") if x.strip()] if n in lists else v
        if row:
            out.append(row)
    return out


def section_form(section: form.Section, start: dict, form_id: str, problems: list[Problem]) -> Any:
    if section.rows:
        return rows_widget(section, start.get(section.name) or [], _key(form_id, section.name))
    values = start.get(section.name) or {}
    out = {}
    for spec in section.fields:
        out[spec.name] = field_widget(spec, values.get(spec.name), _key(form_id, spec.key), problems)
    if section.elsewhere:
        st.caption("Edit in study.toml after saving: " + ", ".join(f"`{k}`" for k in section.elsewhere))
    return out
