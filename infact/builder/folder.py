"""A study folder built in memory from the builder's choices: read the uploaded table, draft the study with
infact.study.starter (the same library as `infact new --from`), apply the form's values, check it as the app
loads it, and zip or save it. Nothing here draws; nothing is written outside a temporary folder until `save`.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from infact.builder.toml_out import dumps
from infact.errors import DatasetError, InfactError, Problem
from infact.fileio import swap_in
from infact.importers.table import TableRead, read_source
from infact.study.loader import Study, validate_study
from infact.study.starter import draft_study, existing, render_toml, write_study_folder
from infact.study.starter.draft import SITUATIONS_FILE, StudyDraft
from infact.study.toml_config import parse_config

MAX_UPLOAD_BYTES = 5 * 1024 * 1024  # a table of dialogs; larger tables: `infact import table` on your machine
TABLE_TYPES = ("csv", "tsv", "xlsx", "jsonl")


def read_upload(name: str, data: bytes, limit: int = MAX_UPLOAD_BYTES) -> TableRead:
    """The situations of an uploaded table, read as untrusted text by the importer `infact import table` uses.

    Refused with a clear problem: too large, not a table type. Bad rows are the TableRead's problems."""
    suffix = Path(name).suffix.lower().lstrip(".")
    shown = Path(name).name or "the upload"
    if len(data) > limit:
        raise DatasetError(
            Problem(
                shown,
                f"is {len(data) / 1e6:.1f} MB, more than the builder's {limit / 1e6:.0f} MB: upload fewer rows, or "
                "import it on your machine with `infact import table` (docs/importing.md)",
            )
        )
    if suffix not in TABLE_TYPES:
        raise DatasetError(Problem(shown, f"is not a table the builder reads: upload a {', '.join(TABLE_TYPES)} file"))
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).stem)[:60] or "table"
    with tempfile.TemporaryDirectory(prefix="infact-upload-") as tmp:
        path = Path(tmp) / f"{safe}.{suffix}"
        path.write_bytes(data)
        read = read_source(path)
    read.file = shown  # the problems name the researcher's file, not the temporary copy
    read.problems = [replace(p, file=shown) if p.file == str(path) else p for p in read.problems]
    if not read.situations:
        raise DatasetError([*read.problems, Problem(shown, "no usable row: one row per dialog, see docs/importing.md")])
    return read


@dataclass
class Built:
    """The files of the study folder the builder made, and what checking them found."""

    files: dict[str, bytes]
    study: Study | None  # loaded as the app loads it; None when it has errors
    errors: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)


def study_id_for(protocol: str, read: TableRead | None) -> str:
    """A study id that says what the study is: `<table>-<protocol>` (`my-<protocol>-study` on sample data), so
    the ratings and the pairwise study of one table never share an id (their answers are stored by it)."""
    if read is None:
        return f"my-{protocol}-study"
    stem = re.sub(r"[^a-z0-9]+", "-", Path(read.file).stem.lower()).strip("-")[:40] or "study"
    return f"{stem}-{protocol}"


def start(protocol: str, read: TableRead | None, study_id: str | None = None) -> StudyDraft:
    """The draft of a `protocol` study: on the uploaded table's situations, or the protocol's sample data."""
    study_id = study_id or study_id_for(protocol, read)
    situations = None if read is None else read.situations
    return draft_study(protocol, study_id=study_id, situations=situations, source=read.file if read else "")


def prefill(draft: StudyDraft) -> dict[str, Any]:
    """Every setting's value for the draft, the protocol's own texts included: the form starts from these."""
    return parse_config(render_toml(draft)).model_dump(mode="json")


def _same(a: Any, b: Any) -> bool:
    """Equal, an empty field counting as a setting left out (None, "", [])."""
    return a == b or all(v is None or v == "" or v == [] for v in (a, b))


def overrides(values: dict[str, Any], start_values: dict[str, Any]) -> dict[str, Any]:
    """The form's values that differ from the draft's (per key of a table; a list of tables as a whole)."""
    out: dict[str, Any] = {}
    for section, value in values.items():
        before = start_values.get(section)
        if isinstance(value, dict) and isinstance(before, dict):
            changed = {k: v for k, v in value.items() if not _same(before.get(k), v)}
            if changed:
                out[section] = changed
        elif not _same(value, before):
            out[section] = value
    return out


def _renamed(draft: StudyDraft, systems: list[str]) -> dict[str, bytes]:
    """The draft's data with its systems named `systems` (same order as the table's columns)."""
    if systems == draft.systems or SITUATIONS_FILE not in draft.data:
        return draft.data
    if len(systems) != len(draft.systems) or len(set(systems)) != len(systems):
        raise InfactError(
            Problem(
                "study.systems",
                f"give one different name per system of the table, in its order ({len(draft.systems)}: "
                f"{', '.join(draft.systems)})",
            )
        )
    rename = dict(zip(draft.systems, systems, strict=True))
    rows = [json.loads(line) for line in draft.data[SITUATIONS_FILE].decode("utf-8").splitlines() if line.strip()]
    for row in rows:
        row["responses"] = {rename.get(k, k): v for k, v in row["responses"].items()}
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return {**draft.data, SITUATIONS_FILE: text.encode("utf-8")}


def build(draft: StudyDraft, values: dict[str, Any]) -> dict[str, bytes]:
    """study.toml (the draft's, with the form's changed values) and the data files, as bytes."""
    start_values = prefill(draft)
    changed = overrides(values, start_values)
    data = _renamed(draft, changed.get("study", {}).get("systems", draft.systems))
    raw = tomllib.loads(render_toml(draft))
    for section, value in changed.items():
        if isinstance(value, dict):
            raw[section] = {**raw.get(section, {}), **value}
        else:
            raw[section] = value
    header = f"# {raw['study']['title']}: a {draft.protocol} study made with the INFACT study builder.\n"
    header += "# Every setting, its default and meaning: docs/settings.md. Check it with `infact validate <folder>`.\n"
    return {"study.toml": (header + dumps(raw)).encode("utf-8"), **data}


def check(files: dict[str, bytes], name: str = "study") -> Built:
    """Load the files as the app does, in a temporary folder: every problem at once (`infact validate`'s)."""
    with tempfile.TemporaryDirectory(prefix="infact-builder-") as tmp:
        folder = Path(tmp) / name
        swap_in(folder, files)
        study, errors, notes = validate_study(folder)

    def named(p: Problem) -> Problem:  # the temporary folder means nothing to the researcher
        return replace(p, file=p.file.replace(str(folder) + "/", "").replace(str(folder), name))

    return Built(files, study, [named(p) for p in errors], [named(p) for p in notes])


def zip_bytes(files: dict[str, bytes], name: str) -> bytes:
    """The study folder as a zip (`name/study.toml`, …), to download and commit."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, content in sorted(files.items()):
            zf.writestr(f"{name}/{path}", content)
    return buf.getvalue()


def clashes(folder: str | Path, files: dict[str, bytes]) -> list[str]:
    """The files the folder already holds that saving would replace: ask before `save(..., replace=True)`."""
    return existing(folder, files)


def save(folder: str | Path, files: dict[str, bytes], *, replace: bool = False) -> list[Path]:
    """Write the study folder as one set; a file already there only with `replace` (kept as NAME.bak-<time>)."""
    return write_study_folder(folder, files, force=replace)


def preview_run(study: Study):
    """(flow, progress) of a preview participant of `study` on an in-memory store, consented and assigned:
    every page of the study to draw with the participant's own pages. Nothing is stored anywhere."""
    from infact.participation.flow import Flow
    from infact.state import progress_of
    from infact.stores.memory import MemoryStorage

    flow = Flow(study, MemoryStorage())
    token = flow.arrive({}, preview=True)
    flow.assign(flow.state(token))
    return flow, progress_of(flow, flow.state(token))
