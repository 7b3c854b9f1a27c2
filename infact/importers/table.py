"""`infact import table FILE --study DIR`: your own dialogs from a spreadsheet (CSV, XLSX or JSONL).

One row per dialog: the context in one column whose cell holds the turns with speaker labels
("User: …" / "Bot: …", one turn per line or all on one line), or one column per turn (`turn_1`, `turn_2`,
… alternating user and bot from the first, or `user_1`, `bot_1`, …), and one column per system with its
next response. Or the long form: one row per system's response, with `dialog_id`, `context`, `system`
and `response` columns (the context on the first row of a dialog is enough). Every dialog must end with a
user turn. Column choices are detected and printed; `--context`, `--turns`, `--systems`, `--id`, … override
them. Every bad row is reported as `file:line: why, and the fix` and left out; nothing is overwritten
without `--force` (the replaced situations file is kept as `NAME.bak-<time>`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.importers.common import SITUATIONS_FILE, ImportReport, clean_text, read_text
from infact.importers.table_rows import ROLE_LABELS, ROLE_TURN, TURN, Row, norm, parse_context, read_rows, speaker_split
from infact.study.situations import Situation, Turn, dumps_situations
from infact.text.items import mentions_item

ID_NAMES = ("dialog_id", "dialogue_id", "conversation_id", "situation_id", "id", "dialog", "dialogue_no")
CONTEXT_NAMES = ("context", "dialog_context", "dialogue_context", "history", "conversation", "dialogue", "chat")
SYSTEM_NAMES = ("system", "model", "system_name", "model_name", "crs")
RESPONSE_NAMES = ("response", "resp", "output", "reply", "system_response", "next_response", "answer")
IGNORED = ("notes", "note", "comment", "comments", "source", "topic", "meta", "")


@dataclass
class TableOptions:
    """Column choices that override the detected ones (None: detect), and the speakers' labels."""

    id: str | None = None
    context: str | None = None
    turns: list[str] | None = None
    systems: list[str] | None = None
    system: str | None = None  # long form: the column naming the system
    response: str | None = None  # long form: the column holding its response
    ignore: list[str] = field(default_factory=list)
    user_labels: list[str] | None = None  # e.g. ["Seeker"]; default ROLE_LABELS["user"]
    bot_labels: list[str] | None = None
    sheet: str | None = None  # XLSX: the sheet (default the first)


@dataclass(frozen=True)
class Columns:
    id: str | None
    context: str | None
    turns: tuple[str, ...]
    systems: tuple[str, ...]  # wide form
    system: str | None = None  # long form
    response: str | None = None

    def describe(self) -> list[str]:
        """What was detected, each with the flag that changes it."""
        if not self.context and not self.turns:
            return ["a situations file (situation_id, context, responses), read as it is"]
        out = [f"dialog id: column {self.id!r} (--id)" if self.id else "dialog id: none, rows numbered d01, d02, …"]
        if self.context:
            out.append(f"context: column {self.context!r}, turns by speaker labels (--context)")
        else:
            out.append(f"context: one column per turn, {', '.join(self.turns)} (--turns)")
        if self.system:
            out.append(
                f"long form: system in {self.system!r}, response in {self.response!r} "
                "(--system-column, --response-column)"
            )
        else:
            out.append(f"systems: {', '.join(self.systems)} (one column each; --systems)")
        return out


@dataclass
class TableRead:
    file: str
    columns: Columns
    situations: list[Situation]
    problems: list[Problem]
    rows: int
    situations_file: bool = False  # the file was a situations file, read as it is


def _pick(header: list[str], given: str | None, names: tuple[str, ...], file: str, flag: str) -> str | None:
    if given is not None:
        if given not in header:
            close = [h for h in header if norm(h) == norm(given)]
            if close:
                return close[0]
            raise DatasetError(Problem(file, f"{flag} {given!r} is not a column; the columns are {header}", 1))
        return given
    by_norm = {norm(h): h for h in header}
    return next((by_norm[n] for n in names if n in by_norm), None)


def detect_columns(header: list[str], options: TableOptions, file: str, rows: list[Row] = ()) -> Columns:
    """The table's columns: given by the options, or found by their names (a `dialog` column is the context
    when its cells hold speaker labels, else the dialog id)."""
    id_col = _pick(header, options.id, ID_NAMES, file, "--id")
    if options.id is None and options.context is None and id_col and _holds_turns(id_col, rows):
        options = replace(options, context=id_col)
        id_col = _pick([h for h in header if h != id_col], None, ID_NAMES, file, "--id")
    system = _pick(header, options.system, SYSTEM_NAMES, file, "--system-column")
    response = _pick(header, options.response, RESPONSE_NAMES, file, "--response-column") if system else None
    long = bool(system and response) and options.systems is None
    if options.turns:
        turns = tuple(_pick(header, t, (), file, "--turns") or t for t in options.turns)
        context = None
    else:
        context = _pick(header, options.context, CONTEXT_NAMES, file, "--context")
        turns = () if context else _turn_columns(header)
    if context is None and not turns:
        raise DatasetError(
            Problem(
                file,
                f"no context column found among {header}: name it with --context COLUMN (one cell holding "
                "'User: …' / 'Bot: …' turns) or --turns COL1,COL2,… (one column per turn)",
                1,
            )
        )
    if long:
        return Columns(id_col, context, turns, (), system, response)
    used = {id_col, context, *turns, *options.ignore}
    if options.systems is not None:
        systems = tuple(_pick(header, s, (), file, "--systems") or s for s in options.systems)
    else:
        systems = tuple(h for h in header if h not in used and norm(h) not in IGNORED)
    if not systems:
        raise DatasetError(
            Problem(
                file,
                f"no system columns: after the id and context columns nothing is left of {header}. Add one column "
                "per system with its response, or use the long form (system and response columns)",
                1,
            )
        )
    return Columns(id_col, context, turns, systems)


def _holds_turns(column: str, rows: list[Row]) -> bool:
    labels = speaker_split(None, None)
    cells = [str(r.cells.get(column) or "") for r in rows[:5]]
    return any(labels.prefix.match(c) for c in cells if c.strip())


def _turn_columns(header: list[str]) -> tuple[str, ...]:
    numbered = []
    for h in header:
        m = TURN.match(norm(h))
        if m:
            numbered.append((int(m.group(1)), 0, h))
            continue
        m = ROLE_TURN.match(norm(h))
        if m:
            numbered.append((int(m.group(2)), 0 if m.group(1) in ROLE_LABELS["user"] else 1, h))
    return tuple(h for _, _, h in sorted(numbered))


def read_table(path: str | Path, options: TableOptions | None = None) -> TableRead:
    """The situations of a table file (CSV, TSV, XLSX, JSONL), every bad row a Problem and left out."""
    options = options or TableOptions()
    path = Path(path)
    file = str(path)
    header, all_rows = read_rows(path, options.sheet)
    problems = [Problem(file, r.problem, r.line) for r in all_rows if r.problem]
    rows = [r for r in all_rows if not r.problem]
    if not rows:
        raise DatasetError(problems + [Problem(file, "no readable row below the header: one row per dialog")])
    columns = detect_columns(header, options, file, rows)
    labels = speaker_split(options.user_labels, options.bot_labels)
    if columns.system:
        entries = _long_entries(rows, columns, labels, file, problems)
    else:
        entries = [e for row in rows if (e := _wide_entry(row, columns, labels, file, problems)) is not None]
    situations = _situations(entries, file, problems, bool(columns.id))
    problems.sort(key=lambda p: p.line or 0)
    return TableRead(file, columns, situations, problems, len(all_rows))


def read_source(path: str | Path, options: TableOptions | None = None) -> TableRead:
    """`read_table`, or a situations file (JSONL lines with `context` and `responses`) read as it is."""
    path = Path(path)
    if path.suffix.lower() == ".jsonl" and _is_situations(path):
        from infact.study.situations import read_situations

        situations, problems = read_situations([path])
        rows = sum(1 for line in read_text(path).splitlines() if line.strip())
        return TableRead(str(path), Columns(None, None, (), ()), situations, problems, rows, situations_file=True)
    return read_table(path, options)


def _is_situations(path: Path) -> bool:
    from infact.fileio import loads_json

    first = next((line for line in read_text(path).splitlines() if line.strip()), "")
    try:
        obj = loads_json(first)
    except ValueError:
        return False
    return isinstance(obj, dict) and isinstance(obj.get("responses"), dict) and "situation_id" in obj


def _context_of(row: Row, columns: Columns, labels, file: str, problems: list[Problem]) -> list[Turn] | None:
    if columns.context:
        cells = [row.cells.get(columns.context)]
    else:
        cells = [row.cells.get(c) for c in columns.turns]
    turns, why = parse_context(cells, labels, by_columns=not columns.context, names=columns.turns)
    if why:
        problems.append(Problem(file, why, row.line, columns.context or "turns"))
        return None
    return turns


def _wide_entry(row: Row, columns: Columns, labels, file: str, problems: list[Problem]):
    turns = _context_of(row, columns, labels, file, problems)
    if turns is None:
        return None
    responses = {}
    for name in columns.systems:
        text = _response_text(row.cells.get(name), labels)
        if text:
            responses[name] = text
        else:
            problems.append(
                Problem(
                    file,
                    f"no response from system {name!r}: fill in the cell, or the dialog is left out of a study "
                    f"that compares {name}",
                    row.line,
                    name,
                )
            )
    if not responses:
        return None
    dialog = str(row.cells.get(columns.id) or "").strip() if columns.id else ""
    return (row.line, dialog, turns, responses)


def _response_text(value, labels) -> str:
    text = "" if value is None else str(value).strip()
    role, rest = labels.strip(text)  # "Bot: …" in a response cell: the label is not part of it
    return clean_text(rest if role == "bot" else text)


@dataclass
class _Dialog:
    """A dialog of a long table, gathered from its rows."""

    line: int  # its first row
    dialog_id: str
    turns: list[Turn] | None = None
    responses: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # system -> the row of its response


def _long_entries(rows: list[Row], columns: Columns, labels, file: str, problems: list[Problem]):
    """One entry per dialog of a long table: its context (from its first row that has one) and responses."""
    dialogs: dict[str, _Dialog] = {}
    for row in rows:
        raw_ctx = row.cells.get(columns.context) if columns.context else None
        key = (str(row.cells.get(columns.id) or "").strip() if columns.id else "") or str(raw_ctx or "").strip()
        if not key:
            problems.append(
                Problem(file, "no dialog id and no context: give every row its dialog's id", row.line, columns.id)
            )
            continue
        dialog = dialogs.setdefault(key, _Dialog(row.line, key if columns.id else ""))
        has_context = raw_ctx if columns.context else any(row.cells.get(c) for c in columns.turns)
        if dialog.turns is None and has_context:
            dialog.turns = _context_of(row, columns, labels, file, problems)
        _add_response(dialog, row, columns, labels, file, problems)
    out = []
    for d in dialogs.values():
        if d.turns is None:
            problems.append(Problem(file, f"dialog {d.dialog_id!r} has no usable context on any of its rows", d.line))
        elif d.responses:
            out.append((d.line, d.dialog_id, d.turns, d.responses))
    return out


def _add_response(dialog: _Dialog, row: Row, columns: Columns, labels, file: str, problems: list[Problem]) -> None:
    system = str(row.cells.get(columns.system) or "").strip()
    text = _response_text(row.cells.get(columns.response), labels)
    if not system or not text:
        what = "system name" if not system else "response"
        problems.append(Problem(file, f"empty {what}: fill it in or delete the row", row.line))
    elif system in dialog.responses:
        problems.append(
            Problem(
                file,
                f"a second response of {system!r} for dialog {dialog.dialog_id!r} (first at line "
                f"{dialog.lines[system]}); kept the first: delete one of them",
                row.line,
            )
        )
    else:
        dialog.responses[system], dialog.lines[system] = text, row.line


def _situations(entries, file: str, problems: list[Problem], has_ids: bool) -> list[Situation]:
    situations: list[Situation] = []
    seen: dict[str, int] = {}
    for number, (line, dialog, turns, responses) in enumerate(entries, start=1):
        dialog = dialog or f"d{number:02d}"
        sid = f"{dialog}-t{len(turns)}"
        if sid in seen:
            problems.append(
                Problem(
                    file,
                    f"dialog {dialog!r} with {len(turns)} turns is already at line {seen[sid]}: give each row its "
                    "own dialog id (or a different cut of the dialog); this row is left out",
                    line,
                )
            )
            continue
        seen[sid] = line
        meta = {"turn": len(turns), "item_mentioned": any(mentions_item(t.text) for t in turns)}
        source = {"format": "table", "file": Path(file).name, "line": line}
        situations.append(Situation(sid, dialog, tuple(turns), responses, source, meta))
    return situations


def import_table(
    path: str | Path,
    study: str | Path,
    options: TableOptions | None = None,
    *,
    situations_file: str = SITUATIONS_FILE,
    force: bool = False,
    starter=None,
) -> ImportReport:
    """Write the table's situations into the study folder (and a starter study.toml, via `starter(situations)`
    returning {name: bytes}, when it has none). An existing situations file is replaced only with `force`."""
    from infact.study.starter import write_study_folder

    read = read_source(path, options)
    study = Path(study)
    if not read.situations:
        raise DatasetError(
            read.problems + [Problem(read.file, "no usable row: fix the rows above (each says how) and import again")]
        )
    files = {situations_file: dumps_situations(read.situations).encode("utf-8")}
    new_toml = not (study / "study.toml").exists() and starter is not None
    if new_toml:
        files.update(starter(read.situations))
    written = write_study_folder(study, files, force=force)
    report = ImportReport(study / situations_file, problems=read.problems)
    report.counts = {"rows": read.rows, "situations": len(read.situations), "rows_with_problems": _bad_rows(read)}
    report.notes = ["columns: " + line for line in read.columns.describe()]
    report.notes += [f"kept the replaced file as {p.name}" for p in written if ".bak-" in p.name]
    if new_toml:
        report.notes.append(f"wrote a starter {study / 'study.toml'}: check it with `infact validate {study}`")
    return report


def _bad_rows(read: TableRead) -> int:
    return len({p.line for p in read.problems if p.line is not None})
