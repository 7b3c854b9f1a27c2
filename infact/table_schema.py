"""A table's columns declared once: name, type, required, one line of meaning (Frictionless Table Schema).

Every exported table has one `TableSchema`: a step kind declares its own (`StepKind.schema`,
infact/participation/steps/), the study-level tables are declared in infact/results/tables/schemas.py.
From that one declaration the export orders and types its columns, writes `datapackage.json`
(https://specs.frictionlessdata.io/table-schema/, read by `frictionless validate` and data
repositories), `analyze` reads a file back with the right types and names a missing column, and
docs/data-model.md's column tables are generated (`infact settings-doc --write`).

Text cells never run (issue 36): a spreadsheet opening a CSV reads a cell that begins with `=`, `+`, `-`,
`@`, tab or carriage return as a formula. Every text cell written through a declaration is neutralised the way
OWASP's "CSV Injection" page describes: a single quote goes before it (`'=1+1`), which a spreadsheet shows as text.
A text that begins with a quote gets one too, so reading back (`read`, `restored_cell`) removes exactly one
leading quote and gives the stored text, character for character. Every text cell is also written between double
quotes (OWASP's other rule), so a carriage return or a `;` inside a text never starts a new row or cell. Numbers
(integer, number and boolean columns, and any cell that is not text) are never changed; `datapackage.json` says
so in each text field's description (`TEXT_CELLS`).

Foundations: imports nothing from INFACT but `infact.errors`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from infact.errors import InfactError, Problem

TYPES = ("string", "integer", "number", "boolean", "datetime")  # no `any`: every written column is declared
# pandas dtypes used when a file is read back: text stays text ("007" is a token, not 7)
_READ_DTYPES = {"string": "string", "datetime": "string"}

# A cell beginning with one of these is read as a formula by Excel, LibreOffice or Google Sheets (OWASP, CSV
# Injection); QUOTE itself is added so that the quote is removed unambiguously when a file is read back.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
_NEUTRALISED = (*FORMULA_START, QUOTE)
_NUMERIC = ("integer", "number", "boolean")
TEXT_CELLS = (
    "(Text cells beginning with =, +, -, @, a tab, a carriage return or ' are written with one ' before them, "
    "so that a spreadsheet shows them as text and never runs them as a formula (OWASP, CSV Injection); remove that "
    "one leading ' to get the text as stored.)"
)


def neutral_cell(value):
    """A cell as written to a CSV or workbook: text beginning with a formula character (or a quote) gets a
    leading quote; anything that is not text (numbers, missing values) is returned as it is."""
    if isinstance(value, str) and value.startswith(_NEUTRALISED):
        return QUOTE + value
    return value


def restored_cell(value):
    """The stored text of a cell `neutral_cell` wrote: its one leading quote removed (other values unchanged)."""
    if isinstance(value, str) and len(value) > 1 and value[0] == QUOTE and value[1] in _NEUTRALISED:
        return value[1:]
    return value


def _text_columns(frame, numeric: Iterable[str] = ()) -> list:
    skip = set(numeric)
    return [c for c in frame.columns if c not in skip and (frame[c].dtype.kind in "OSU" or frame[c].dtype == "string")]


def _neutral_column(column):
    try:
        first = column.str[:1]  # NaN for a cell that is not text
    except AttributeError:  # no text in the column at all (all missing, or numbers in an object column)
        return column.map(neutral_cell)
    marked = first.isin(_NEUTRALISED)
    return column.mask(marked, QUOTE + column[marked]) if marked.any() else column


def _restored_column(column):
    try:
        marked = (column.str[:1] == QUOTE) & column.str[1:2].isin(_NEUTRALISED)
    except AttributeError:
        return column
    marked = marked.fillna(False).astype(bool)
    return column.mask(marked, column[marked].str[1:]) if marked.any() else column


def _mapped(frame, columns: list, cell):
    out = frame.copy()
    for c in columns:
        out[c] = cell(frame[c])
    return out


def neutral_frame(frame, numeric: Iterable[str] = ()):
    """`frame` with every text cell neutralised (`neutral_cell`), columns named in `numeric` left as they are."""
    columns = _text_columns(frame, numeric)
    return _mapped(frame, columns, _neutral_column) if columns else frame


def csv_bytes(frame, numeric: Iterable[str] = ()) -> bytes:
    """`frame` as CSV (UTF-8, `\n` between rows): every text cell neutralised (`neutral_frame`) and between double
    quotes, as OWASP's CSV Injection page asks, so that a carriage return or a `;` inside a text can never start
    a new row or cell in a spreadsheet; numbers, booleans and the header row (column names) unquoted."""
    header = io.StringIO()
    csv.writer(header, lineterminator="\n").writerow([str(c) for c in frame.columns])
    body = neutral_frame(frame, numeric).to_csv(index=False, header=False, quoting=csv.QUOTE_NONNUMERIC)
    return (header.getvalue() + body).encode("utf-8")


def restored_frame(frame):
    """A table read back from a CSV: every text cell as stored (`restored_cell`)."""
    columns = _text_columns(frame)
    return _mapped(frame, columns, _restored_column) if columns else frame


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str
    required: bool = False

    def __post_init__(self):
        if self.type not in TYPES:
            raise ValueError(f"column {self.name!r}: type {self.type!r} is not one of {', '.join(TYPES)}")


@dataclass(frozen=True)
class TableSchema:
    """One exported CSV table: `name` (ratings) is written as `name.csv`."""

    name: str
    description: str
    columns: tuple[Column, ...]
    # Columns that repeat once per system (ratings_wide.csv): one declaration, one meaning, its name a pattern
    # (`<system>`); each written column is typed and described by it.
    repeated: Column | None = None
    primary_key: tuple[str, ...] = field(default=())

    def __post_init__(self):
        # Every table of participants' answers carries their between-subjects condition next to the participant
        # (infact/study/conditions/overlay.py; empty in a study without conditions): declared once, here.
        names = [c.name for c in self.columns]
        if PARTICIPANT.name in names and CONDITION.name not in names:
            at = names.index(PARTICIPANT.name) + 1
            object.__setattr__(self, "columns", (*self.columns[:at], CONDITION, *self.columns[at:]))

    @property
    def file(self) -> str:
        return f"{self.name}.csv"

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def required(self) -> list[str]:
        return [c.name for c in self.columns if c.required]

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def read_dtypes(self) -> dict[str, str]:
        """pandas dtypes for `read_csv`: text columns stay text."""
        return {c.name: _READ_DTYPES[c.type] for c in self.columns if c.type in _READ_DTYPES}

    def check_columns(self, present: Iterable[str], source: str, needed: Iterable[str] | None = None) -> None:
        """InfactError naming the file and every column it lacks of `needed` (default: the required ones),
        each with what it means: the one message a missing column gets, wherever a table is read."""
        have = set(present)
        missing = [c for c in (self.required if needed is None else needed) if c not in have]
        if missing:
            raise InfactError([self.missing(c, source) for c in missing])

    def missing(self, name: str, source: str) -> Problem:
        col = self.column(name)
        meaning = f" ({col.description})" if col else ""
        return Problem(
            source,
            f"missing column: {self.file} needs `{name}`{meaning}; export the file again with "
            "`infact export` or add the column",
            line=1,
            key=name,
        )

    def read(self, path, **kwargs):
        """The file read back through this declaration: text columns stay text, required columns checked."""
        import pandas as pd

        frame = pd.read_csv(path, dtype=self.read_dtypes(), **kwargs)
        self.check_columns(frame.columns, str(path))
        return restored_frame(frame)

    def csv_bytes(self, frame, repeated: Iterable[str] = ()) -> bytes:
        """The table as its CSV file: exactly its declared columns (then `repeated`), typed, every text cell
        neutralised and quoted (module `csv_bytes`; number, integer and boolean columns as they are)."""
        repeated = list(repeated)
        out = self.conform(self.typed(frame), repeated)
        numeric = [c.name for c in self.columns if c.type in _NUMERIC]
        if self.repeated is not None and self.repeated.type in _NUMERIC:
            numeric += repeated
        return csv_bytes(out, numeric)

    def conform(self, frame, repeated: Iterable[str] = ()):
        """The frame with exactly the declared columns, in their order (then one column per `repeated` name):
        a column nobody declared is a defect, raised, never written as `any`."""
        extra = list(repeated)
        undeclared = [c for c in frame.columns if self.column(c) is None and c not in extra]
        if undeclared:
            raise ValueError(f"{self.file}: column(s) {', '.join(map(str, undeclared))} are not declared")
        return frame.reindex(columns=[*self.names, *extra])

    def typed(self, frame):
        """The frame as written: integer columns that pandas made float (a missing value) back to integers."""

        out = frame
        for col in self.columns:
            if col.type == "integer" and col.name in frame.columns and frame[col.name].dtype.kind == "f":
                values = frame[col.name]
                if ((values.dropna() % 1) == 0).all():
                    out = (
                        out.assign(**{col.name: values.astype("Int64")})
                        if out is not frame
                        else frame.assign(**{col.name: values.astype("Int64")})
                    )
        return out

    def frictionless(self, present: Iterable[str] | None = None) -> dict:
        """The Table Schema descriptor of the file as written (its columns in file order)."""
        present = list(present) if present is not None else self.names
        fields = []
        for name in present:
            col = self.column(name) or (self.repeated and Column(name, self.repeated.type, self.repeated.description))
            if not col:
                raise ValueError(f"{self.file}: column {name!r} is written but not declared")
            fields.append(
                {
                    "name": name,
                    "type": col.type,
                    "description": f"{col.description} {TEXT_CELLS}" if col.type == "string" else col.description,
                    **({"constraints": {"required": True}} if col.required else {}),
                }
            )
        schema = {"fields": fields, "missingValues": [""]}
        if self.primary_key and all(k in present for k in self.primary_key):
            schema["primaryKey"] = list(self.primary_key)
        return schema

    def markdown(self) -> str:
        """The column table docs/data-model.md shows for this file."""
        lines = [
            f"### `{self.file}`",
            "",
            self.description,
            "",
            "| column | type | required | meaning |",
            "|---|---|---|---|",
        ]
        lines += [f"| `{c.name}` | {c.type} | {'yes' if c.required else ''} | {c.description} |" for c in self.columns]
        if self.repeated:
            r = self.repeated
            lines.append(f"| `{r.name}` … | {r.type} | | {r.description} |")
        return "\n".join(lines) + "\n"


# Columns every step kind's table shares, described once (each kind lists them where it wants them).
PARTICIPANT = Column("participant", "string", "random participant token (the ?p= of their link)", True)
CONDITION = Column("condition", "string", "the participant's between-subjects condition (`[conditions.NAME]`), if any")
STUDY = Column("study", "string", "study id from study.toml")
SECONDS = Column("seconds", "number", "seconds from the page being shown to its submit")
STEP_INDEX = Column("step_index", "integer", "1-based number of the situation in the participant's run")
EXCLUDED = Column(
    "excluded",
    "boolean",
    "the quality decision: true when the participant is excluded (docs/quality.md); "
    "analysis leaves them out unless asked",
)
BOT = Column(
    "bot",
    "boolean",
    "true for a bot participant (`infact bots`), never a person: analysis and the datasheet leave them out "
    "unless `--include-bots`",
)


# The files that are not tables, as what they are: frictionless reads a `.jsonl` as a table (and asks for an
# extra package) unless told it is a file of JSON lines.
_FILE_TYPES = {
    ".json": {"type": "json", "format": "json", "mediatype": "application/json"},
    ".jsonl": {"type": "file", "format": "jsonl", "mediatype": "application/jsonl"},
    ".xlsx": {
        "type": "file",
        "format": "xlsx",
        "mediatype": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    },
}


def datapackage(name: str, title: str, resources: list[tuple[TableSchema, list[str]]], others: dict[str, str]) -> dict:
    """A Frictionless Data Package describing an export set: each CSV with its schema, other files by path."""
    out = [
        {
            "name": s.name.replace("_", "-"),
            "path": s.file,
            "profile": "tabular-data-resource",
            "format": "csv",
            "mediatype": "text/csv",
            "encoding": "utf-8",
            "description": s.description,
            "schema": s.frictionless(cols),
        }
        for s, cols in resources
    ]
    out += [
        {
            "name": Path(path).stem.replace("_", "-") + "-" + Path(path).suffix.lstrip("."),
            "path": path,
            **_FILE_TYPES.get(Path(path).suffix, {"type": "file"}),
            "description": description,
        }
        for path, description in others.items()
    ]
    return {"profile": "data-package", "name": _slug(name), "title": title, "resources": out}


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "infact-export"
