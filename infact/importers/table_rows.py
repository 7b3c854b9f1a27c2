"""The rows of a table file and the turns of a context cell, for `import table` (importers/table.py).

`read_rows` reads CSV (comma, semicolon or tab, as Excel writes them in any locale), TSV, XLSX (the first
sheet or a named one) and JSONL into a header and rows, each with the line (or sheet row) it starts on.
`parse_context` turns a context cell ("User: …" / "Bot: …" turns, one per line or on one line; or a JSON
list) or a row's turn columns into turns, or says why it cannot, with the fix.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.fileio import loads_json
from infact.importers.common import clean_text, csv_rows, read_text
from infact.study.situations import Turn

ROLE_LABELS = {
    "user": ("user", "seeker", "human", "customer", "client", "you", "usr", "u"),
    "bot": (
        "bot",
        "chatbot",
        "chat-bot",
        "chat bot",
        "system",
        "sys",
        "assistant",
        "recommender",
        "agent",
        "crs",
        "ai",
        "model",
        "s",
    ),
}


@dataclass(frozen=True)
class Row:
    line: int  # the file's line (CSV, JSONL) or the sheet's row (XLSX) the row starts on
    cells: dict  # column -> value (str, or a list for a JSONL context)
    problem: str = ""  # a row that cannot be read: why, and the fix (its cells are empty)


def read_rows(path: Path, sheet: str | None = None) -> tuple[list[str], list[Row]]:
    file = str(path)
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return _xlsx_rows(path, sheet)
    if suffix == ".xls":
        raise DatasetError(Problem(file, "an old Excel .xls file: save it as .xlsx or .csv and import that"))
    text = read_text(path)
    if suffix in (".jsonl", ".ndjson") or (suffix not in (".csv", ".tsv", ".txt") and text.lstrip()[:1] == "{"):
        return _jsonl_rows(text, file)
    return _csv_rows(text, file, "\t" if suffix == ".tsv" else None)


def _csv_rows(text: str, file: str, delimiter: str | None) -> tuple[list[str], list[Row]]:
    if delimiter is None:
        first = text.split("\n", 1)[0]
        delimiter = max((",", ";", "\t"), key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[Row] = []
    start = 1
    for cells in csv_rows(reader, file):
        line, start = start, reader.line_num + 1
        if header is None:
            header = [c.strip() for c in cells]
            if not any(header):
                raise DatasetError(Problem(file, "the first line must be the header: the columns' names", line))
            continue
        if not any(c.strip() for c in cells):
            continue
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            why = (
                f"{len(cells)} cells but the header names {len(header)} columns: put quotes around a cell with a "
                f"'{delimiter}' in it, or name the extra column in the header"
            )
            rows.append(Row(line, {}, why))
            continue
        rows.append(Row(line, {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header) if h}))
    if header is None:
        raise DatasetError(Problem(file, "empty file: a header line and one row per dialog are needed"))
    return [h for h in header if h], rows


def _jsonl_rows(text: str, file: str) -> tuple[list[str], list[Row]]:
    rows: list[Row] = []
    header: dict[str, None] = {}
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = loads_json(raw)
        except json.JSONDecodeError as exc:
            rows.append(Row(line, {}, f"invalid JSON ({exc.msg} at column {exc.colno}): write one object per line"))
            continue
        if not isinstance(obj, dict):
            rows.append(Row(line, {}, "expected a JSON object {column: value, …}: write one object per line"))
            continue
        for key in obj:
            header.setdefault(str(key), None)
        rows.append(Row(line, {str(k): v for k, v in obj.items()}))
    return list(header), rows


def _xlsx_rows(path: Path, sheet: str | None) -> tuple[list[str], list[Row]]:
    import zipfile

    from openpyxl import load_workbook

    file = str(path)
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as exc:
        raise DatasetError(Problem(file, f"not a readable .xlsx workbook ({exc}): save it again from Excel")) from None
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise DatasetError(Problem(file, f"no sheet {sheet!r}; its sheets are {book.sheetnames} (--sheet)"))
        values = list(book[sheet or book.sheetnames[0]].iter_rows(values_only=True))
    finally:
        book.close()
    if not values:
        raise DatasetError(Problem(file, "the sheet is empty: a header row and one row per dialog are needed"))
    header = [_cell(v).strip() for v in values[0]]
    rows = [
        Row(number, {h: _cell(v) for h, v in zip(header, cells, strict=False) if h})
        for number, cells in enumerate(values[1:], start=2)
        if any(_cell(v).strip() for v in cells)
    ]
    return [h for h in header if h], rows


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---------------------------------------------------------------- the turns of a context


NAME = re.compile(r"[^a-z0-9]+")
TURN = re.compile(r"^(?:turn|utterance|utt|message|msg|t)_?(\d+)$")
ROLE_TURN = re.compile(r"^(user|seeker|human|bot|chatbot|system|assistant|recommender)_?(\d+)$")


def norm(name: str) -> str:
    """A column name compared loosely: `Dialog ID`, `dialog-id` and `dialog_id` are one."""
    return NAME.sub("_", str(name).lower()).strip("_")


@dataclass(frozen=True)
class Labels:
    """The speaker labels of a table ("User", "Bot", …) and where they start a turn."""

    roles: dict[str, str]  # label, lower case and single-spaced -> "user" | "bot"
    prefix: re.Pattern  # a label at the start of a text
    inline: re.Pattern  # a label anywhere after whitespace (a one-line cell)
    at_line: re.Pattern  # a label at the start of a line (a multi-line cell)

    def role(self, label: str) -> str:
        return self.roles[" ".join(label.lower().split())]

    def strip(self, text: str) -> tuple[str | None, str]:
        """(the role of a leading label, or None; the text after it)."""
        m = self.prefix.match(text)
        return (self.role(m.group("label")), text[m.end() :]) if m else (None, text)


def speaker_split(user: list[str] | None, bot: list[str] | None) -> Labels:
    """The speaker labels of a table: the given ones, or the usual names of a user and a chatbot."""
    roles = {" ".join(x.lower().split()): "user" for x in (user or ROLE_LABELS["user"])}
    roles.update({" ".join(x.lower().split()): "bot" for x in (bot or ROLE_LABELS["bot"])})
    names = "|".join(re.escape(x).replace(r"\ ", r"\s+") for x in sorted(roles, key=len, reverse=True))
    label = rf"(?P<label>{names})\s*:"
    return Labels(
        roles,
        re.compile(rf"\s*{label}\s*", re.IGNORECASE),
        re.compile(rf"(?:^|(?<=\s)){label}", re.IGNORECASE),
        re.compile(rf"^[ \t]*{label}", re.IGNORECASE | re.MULTILINE),
    )


UNKNOWN_LABEL = re.compile(r"^\s*([A-Za-z][\w .'-]{0,24}?)\s*:")


def parse_context(cells: list, labels: Labels, *, by_columns: bool, names=()) -> tuple[list[Turn], str]:
    """(turns, "") or ([], why and the fix)."""
    if by_columns:
        turns, why = _turns_of_columns(cells, labels, names)
    else:
        turns, why = _turns_of_cell(cells[0], labels)
    if why:
        return [], why
    if not turns:
        return [], "empty context: write the dialog so far, ending with the user's message"
    if turns[-1].role != "user":
        return [], (
            f"the dialog ends with a bot turn ({turns[-1].text[:40]!r}): a situation is cut right after a user "
            "turn, so end the context with the user's message (delete the last bot turn, or add the user's reply)"
        )
    return turns, ""


def _turns_of_cell(value, labels: Labels) -> tuple[list[Turn], str]:
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = loads_json(value)
        except json.JSONDecodeError:
            pass
    if isinstance(value, list):
        return _turns_of_list(value, labels)
    text = "" if value is None else str(value).replace("\r\n", "\n").strip()
    if not text:
        return [], ""
    pattern = labels.inline if "\n" not in text else labels.at_line
    marks = list(pattern.finditer(text))
    if not marks:
        unknown = UNKNOWN_LABEL.match(text)
        if unknown:
            return [], (
                f"unknown speaker label {unknown.group(1)!r}: name your labels with --user-label and --bot-label "
                f"(e.g. --user-label {unknown.group(1)!r})"
            )
        return [], "no speaker labels: start each turn with 'User:' or 'Bot:' (one turn per line or on one line)"
    if text[: marks[0].start()].strip():
        return [], f"text before the first speaker label ({text[:30]!r}): start the cell with 'User:' or 'Bot:'"
    turns = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=True):
        body = clean_text(text[m.end() : nxt.start() if nxt else len(text)])
        if body:
            turns.append(Turn(labels.role(m.group("label")), body))
    return turns, ""


def _turns_of_list(items: list, labels: Labels) -> tuple[list[Turn], str]:
    turns = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            role = str(item.get("role", item.get("speaker", ""))).lower()
            if role not in labels.roles:
                return [], f"context[{i}] has role {role!r}: use 'user' or 'bot' (or name it with --user-label)"
            turns.append(Turn(labels.roles[role], clean_text(item["text"])))
        elif isinstance(item, str):
            role, text = labels.strip(item)
            turns.append(Turn(role or ("user" if i % 2 == 0 else "bot"), clean_text(text)))
        else:
            return [], f'context[{i}] must be a string or {{"role": "user"|"bot", "text": …}}'
    return [t for t in turns if t.text], ""


def _turns_of_columns(cells: list, labels: Labels, names) -> tuple[list[Turn], str]:
    texts = ["" if c is None else str(c).strip() for c in cells]
    last = max((i for i, t in enumerate(texts) if t), default=-1)
    turns = []
    for i, text in enumerate(texts[: last + 1]):
        if not text:
            return [], f"column {names[i]!r} is empty between turns: fill it in or move the later turns left"
        role, text = labels.strip(text)
        by_name = ROLE_TURN.match(norm(names[i])) if i < len(names) else None
        if role:
            pass
        elif by_name:
            role = "user" if by_name.group(1) in ROLE_LABELS["user"] else "bot"
        else:
            role = "user" if i % 2 == 0 else "bot"
        turns.append(Turn(role, clean_text(text)))
    return turns, ""
