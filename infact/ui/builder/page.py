"""The study builder's page (pages/builder.py): the form generated from the settings models (infact/builder/
fields.py, drawn by infact/ui/builder/form.py), the problems of the study it makes all at once, a live preview
drawn by the participant's own pages, and Save / Download zip. The logic is infact/builder/."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import streamlit as st

from infact.builder import fields as form
from infact.builder import folder as build
from infact.errors import InfactError, Problem
from infact.state import progress_of
from infact.stores.config import on_community_cloud
from infact.study.starter import PROTOCOLS
from infact.study.starter.draft import FROM_TABLE
from infact.text import catalogue
from infact.text.display import CSS, title_html
from infact.ui import hooks
from infact.ui.builder.form import KEY, section_form


def upload(protocol: str):
    """(the researcher's table read by the importer, or None: the protocol's sample data; the form's id).

    The form's widgets are keyed by the form's id, `<protocol>` or `<protocol>-<the table's digest>`: a new
    table starts a form of its own from what that table allows (systems, situations per participant, attention
    check), and each protocol keeps its own values."""
    read, digest = _table(protocol)
    return read, protocol if digest is None else f"{protocol}-{digest}"


def _table(protocol: str):
    if protocol not in FROM_TABLE:
        st.info(f"A {protocol} study starts from its sample data; import your own later (docs/importing.md).")
        return None, None
    file = st.file_uploader(
        "Your dialogs: a table (CSV, TSV, XLSX or JSONL), one row per dialog and a column per system",
        type=list(build.TABLE_TYPES),
        key=f"{KEY}:table",
        help=f"At most {build.MAX_UPLOAD_BYTES // 1_000_000} MB. Without one, the protocol's sample dialogs are used.",
    )
    if file is None:
        return None, None
    data = file.getvalue()
    read = build.read_upload(file.name, data)  # DatasetError: shown by the caller
    st.caption(f"{len(read.situations)} situations from {read.rows} rows: " + "; ".join(read.columns.describe()))
    for problem in read.problems:
        st.warning(f"Left out: {problem}")
    return read, hashlib.sha256(data).hexdigest()[:8]


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


def _preview_participant(study, files: dict[str, bytes]):
    """(flow, progress) of this session's preview participant of these files, kept across reruns in memory
    (a new one when the study changes or on *Start over*): what they answered moves them on."""
    digest = hashlib.sha256(b"".join(k.encode() + v for k, v in sorted(files.items()))).hexdigest()
    run = st.session_state.get(f"{KEY}-run")
    if run is None or run[0] != digest:
        flow, progress = build.preview_run(study)
        st.session_state[f"{KEY}-run"] = (digest, flow, progress.token)
        return flow, progress
    _, flow, token = run
    return flow, progress_of(flow, flow.state(token))


def preview(study, files: dict[str, bytes]) -> None:
    """The participant's pages, drawn by the participant's own pages on a preview participant in memory:
    any page to look at, or *Take part*: the pages in order, answered as a participant does."""
    flow, progress = _preview_participant(study, files)
    names = [s.name for s in progress.steps]
    choice = st.selectbox("Page", [TAKE_PART, *names], index=0, key=f"{KEY}:preview-step")
    step = progress.current if choice == TAKE_PART else progress.steps[names.index(choice)]
    if choice == TAKE_PART and st.button("Start over", key=f"{KEY}:preview-restart"):
        st.session_state.pop(f"{KEY}-run", None)
        st.rerun()
    shown = type(progress)(progress.state, progress.steps, step)
    catalogue.use(flow.cfg.study.language)  # the participant's language; the builder around it stays English
    try:
        with st.container(border=True, key=f"{KEY}-preview"):
            draw_top = hooks.page_top(step.kind)
            top = draw_top(flow, shown, step) if draw_top else ""
            st.html(CSS + title_html(flow.cfg.study.title) + top)
            hooks.page(step.kind)(flow, shown, step)
    finally:
        catalogue.use(catalogue.SOURCE)


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


TAKE_PART = "Take part (answer to move on)"
PANE = 720  # px: the form and the preview side by side in a 900 px high window, each scrolling on its own


def builder_page() -> None:
    st.title("Study builder")
    st.caption(
        "Choose the protocol, upload your table and fill in the form; the preview on the right is the "
        "participant's page. Every field's meaning: its (?) and docs/settings.md."
    )
    left, right = st.columns([3, 2], gap="large")
    # Each side scrolls on its own: the problems and the preview stay in view while the form is filled in.
    left, right = left.container(height=PANE, key=f"{KEY}-form"), right.container(height=PANE, key=f"{KEY}-side")
    with left:
        protocol = st.selectbox("Protocol", list(PROTOCOLS), key=f"{KEY}:protocol")
        problems: list[Problem] = []
        try:
            read, form_id = upload(protocol)
            draft = build.start(protocol, read)
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
                values[section.name] = section_form(section, start, form_id, problems)
        with st.expander("More settings"):
            for section in sections:
                if section.name not in form.MAIN:
                    st.markdown(f"**{section.name}**: {section.description}")
                    values[section.name] = section_form(section, start, form_id, problems)
        result = _built(draft, values, problems)
    with right:
        st.subheader("Problems")
        show_problems(result.errors, result.notes)
        if result.study is not None:
            st.subheader("Preview")
            preview(result.study, result.files)
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
