"""The study builder's page (pages/builder.py): a form generated from the settings models
(infact/builder/fields.py), the problems of the study it makes all at once, a live preview drawn by the
participant page's own renderers, and Save / Download zip. The logic is infact/builder/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from infact.builder import fields as form
from infact.builder import folder as build
from infact.errors import InfactError, Problem
from infact.stores.config import on_community_cloud
from infact.study.starter import PROTOCOLS
from infact.study.starter.draft import FROM_TABLE
from infact.text.display import CSS, title_html
from infact.ui.participant_page import PAGE_TOPS, RENDERERS

KEY = "builder"  # every widget's key starts with it


def _key(protocol: str, spec_key: str) -> str:
    return f"{KEY}:{protocol}:{spec_key}"


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


def section_form(section: form.Section, start: dict, protocol: str, problems: list[Problem]) -> Any:
    if section.rows:
        return rows_widget(section, start.get(section.name) or [], _key(protocol, section.name))
    values = start.get(section.name) or {}
    out = {}
    for spec in section.fields:
        out[spec.name] = field_widget(spec, values.get(spec.name), _key(protocol, spec.key), problems)
    if section.elsewhere:
        st.caption("Edit in study.toml after saving: " + ", ".join(f"`{k}`" for k in section.elsewhere))
    return out


def upload(protocol: str):
    """The researcher's table, read by the importer; None: the protocol's sample data."""
    if protocol not in FROM_TABLE:
        st.info(f"A {protocol} study starts from its sample data; import your own later (docs/importing.md).")
        return None
    file = st.file_uploader(
        "Your dialogs: a table (CSV, TSV, XLSX or JSONL), one row per dialog and a column per system",
        type=list(build.TABLE_TYPES),
        key=f"{KEY}:table",
        help=f"At most {build.MAX_UPLOAD_BYTES // 1_000_000} MB. Without one, the protocol's sample dialogs are used.",
    )
    if file is None:
        return None
    read = build.read_upload(file.name, file.getvalue())  # DatasetError: shown by the caller
    st.caption(f"{len(read.situations)} situations from {read.rows} rows: " + "; ".join(read.columns.describe()))
    for problem in read.problems:
        st.warning(f"Left out: {problem}")
    return read


def show_problems(errors: list[Problem], notes: list[Problem]) -> None:
    if errors:
        st.error(
            f"**{len(errors)} problem(s)** to fix before the study can run:\n\n"
            + "\n".join(f"- {p.message if p.file == 'form' else p}" for p in errors)
        )
    else:
        st.success("The study is ready to run: no problems.")
    for note in notes:
        st.caption(str(note))


def preview(study) -> None:
    """The participant's pages, drawn by the participant page's renderers on a preview participant in memory."""
    flow, progress = build.preview_run(study)
    names = [s.name for s in progress.steps]
    choice = st.selectbox("Page", names, index=0, key=f"{KEY}:preview-step")
    step = progress.steps[names.index(choice)]
    shown = type(progress)(progress.state, progress.steps, step)
    with st.container(border=True, key=f"{KEY}-preview"):
        top = PAGE_TOPS[step.kind](flow, shown, step) if step.kind in PAGE_TOPS else ""
        st.html(CSS + title_html(flow.cfg.study.title) + top)
        RENDERERS[step.kind](flow, shown, step)


def save_box(files: dict[str, bytes], study_id: str) -> None:
    """Save into a folder (asking before anything is replaced) or download the folder as a zip."""
    if on_community_cloud():
        st.warning(
            "This app's disk does not last (Community Cloud wipes it on a reboot): download the zip, unpack it "
            "into your repository and commit it, then point INFACT_STUDY at it (docs/deploying.md)."
        )
    st.download_button(
        "Download the study folder (zip)",
        build.zip_bytes(files, study_id),
        file_name=f"{study_id}.zip",
        mime="application/zip",
        key=f"{KEY}:zip",
    )
    target = st.text_input("Save into the folder", f"studies/{study_id}", key=f"{KEY}:folder")
    clash = build.clashes(target, files)
    replace = False
    if clash:
        replace = st.checkbox(
            f"Replace {', '.join(clash)} in {target} (each is kept as NAME.bak-<time>)", key=f"{KEY}:replace"
        )
    if st.button("Save", type="primary", key=f"{KEY}:save", disabled=bool(clash) and not replace):
        written = build.save(target, files, replace=replace)
        st.success(
            f"Saved {len(written)} file(s) into {target}. Run it: `INFACT_STUDY={target} streamlit run "
            "streamlit_app.py`, or check it: `python -m infact validate " + target + "`."
        )
        st.session_state[f"{KEY}:saved"] = str(Path(target).resolve())


def builder_page() -> None:
    st.title("Study builder")
    st.caption(
        "Choose the protocol, upload your table and fill in the form; the preview on the right is the "
        "participant's page. Every field's meaning: its (?) and docs/settings.md."
    )
    left, right = st.columns([3, 2], gap="large")
    with left:
        protocol = st.selectbox("Protocol", list(PROTOCOLS), key=f"{KEY}:protocol")
        problems: list[Problem] = []
        try:
            read = upload(protocol)
            draft = build.start(protocol, read, "my-study")
        except InfactError as exc:
            st.error("The table cannot be used:\n\n" + "\n".join(f"- {p}" for p in exc.problems))
            return
        start = build.prefill(draft)
        sections, _ = form.form_sections()
        values: dict[str, Any] = {}
        main = [s for s in sections if s.name in form.MAIN]
        for section in main:
            with st.expander(section.name.replace("_", " ").capitalize(), expanded=section.name != "protocol"):
                st.caption(section.description)
                values[section.name] = section_form(section, start, protocol, problems)
        with st.expander("More settings"):
            for section in sections:
                if section.name not in form.MAIN:
                    st.markdown(f"**{section.name}**: {section.description}")
                    values[section.name] = section_form(section, start, protocol, problems)
        result = _built(draft, values, problems)
    with right:
        st.subheader("Problems")
        show_problems(result.errors, result.notes)
        if result.study is not None:
            st.subheader("Preview")
            preview(result.study)
    if result.study is not None:
        st.subheader("Save")
        save_box(result.files, result.study.id)


def _built(draft, values: dict, problems: list[Problem]) -> build.Built:
    try:
        files = build.build(draft, values)
    except InfactError as exc:
        return build.Built({}, None, problems + exc.problems)
    result = build.check(files, values.get("study", {}).get("id") or "study")
    result.errors = problems + result.errors
    if problems:
        result.study = None
    return result
