"""Helpers shared by the importers: title normalisation, matching keys, the
import report and the staging-dir write that never half-writes a study."""

from __future__ import annotations

import csv
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.fileio import read_input_text, replace_dir
from infact.study.situations import Situation, Turn, write_situations
from infact.text.items import MENTION_ID, QUOTED, mentions_item, normalise_title, normalise_titles

SITUATIONS_FILE = "situations.jsonl"
HUMAN_SYSTEM = "Human (ReDial)"

_NOT_ALNUM = re.compile(r"[^0-9a-z#]+")


def clean_text(text: str) -> str:
    """Trimmed utterance with runs of spaces collapsed and quoted titles normalised."""
    return normalise_titles(" ".join(text.split()))


def replace_mentions(text: str, *titles: dict[str, str]) -> tuple[str, list[str]]:
    """Turn '@12345' into '"Title (year)"' from the first mapping that knows it.

    Returns the new text and the ids no mapping knew (left visible)."""
    missing: list[str] = []

    def sub(m: re.Match) -> str:
        for mapping in titles:
            title = mapping.get(m.group(1))
            if title and title.strip():
                return f'"{normalise_title(title)}"'
        missing.append(m.group(1))
        return m.group(0)

    return MENTION_ID.sub(sub, text), missing


def text_key(text: str) -> str:
    """Comparison key robust to case, tokenisation ("do n't"), punctuation, title
    spacing and to titles written as quotes or as raw @ids (both become '#')."""
    text = MENTION_ID.sub("#", QUOTED.sub("#", text.replace("<s>", "").replace("</s>", "")))
    return _NOT_ALNUM.sub("", text.lower())


def loose_key(text: str) -> str:
    """Like text_key but keeps title words, for contexts that write titles unquoted."""
    return _NOT_ALNUM.sub("", text.replace("<s>", "").replace("</s>", "").lower().replace("#", ""))


def context_key(texts: Iterable[str], key=text_key) -> tuple[str, ...]:
    return tuple(key(t) for t in texts)


def read_text(path: Path) -> str:
    """Read an input file as UTF-8 (BOM tolerated) or raise a DatasetError that says why."""
    return read_input_text(path)


def movies_for(movies_csv: str | Path | None, report: ImportReport) -> dict[str, str]:
    """{movie id: title} from ReDial's movies CSV when one is given (its problems go to `report`), else {}."""
    if movies_csv is None:
        return {}
    movies, problems = load_movies_csv(Path(movies_csv))
    report.problems.extend(problems)
    return movies


def load_movies_csv(path: Path) -> tuple[dict[str, str], list[Problem]]:
    """ReDial's movies_with_mentions.csv (movieId,movieName,nbMentions) -> {id: title}."""
    name = str(path)
    rows = list(csv_rows(csv.reader(read_text(path).splitlines()), name))
    problems: list[Problem] = []
    if not rows:
        raise DatasetError(
            Problem(name, "empty movies file: expected a header 'movieId,movieName' and one movie per line")
        )
    header = [h.strip() for h in rows[0]]
    if "movieId" in header and "movieName" in header:
        id_col, title_col, body, first = header.index("movieId"), header.index("movieName"), rows[1:], 2
    else:  # no header: first two columns
        id_col, title_col, body, first = 0, 1, rows, 1
    movies: dict[str, str] = {}
    for lineno, row in enumerate(body, start=first):
        if not row:
            continue
        if len(row) <= max(id_col, title_col) or not row[id_col].strip().isdigit():
            problems.append(Problem(name, "expected 'movieId,movieName' with a numeric id; row skipped", lineno))
            continue
        movies[row[id_col].strip()] = row[title_col]
    return movies, problems


@dataclass
class ImportReport:
    """What an import did: counts for the summary, problems for warnings."""

    out: Path
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def print(self, title: str) -> None:
        files = {p.file: i for i, p in reversed(list(enumerate(self.problems)))}
        for p in sorted(self.problems, key=lambda p: (files[p.file], p.line or 0)):
            print(f"warning: {p}", file=sys.stderr)
        print(f"{title} -> {self.out}")
        for key, value in self.counts.items():
            print(f"  {key.replace('_', ' ')}: {value}")
        for note in self.notes:
            print(f"  {note}")
        if self.problems:
            print(f"  {len(self.problems)} warning(s) above, each with file:line")


def ordered_systems(situations: Iterable[Situation]) -> list[str]:
    seen: dict[str, None] = {}
    for s in situations:
        for name in s.responses:
            seen.setdefault(name, None)
    return list(seen)


def study_id(folder_name: str) -> str:
    """A valid study id (letters, digits, '-', '_') from the --out folder name."""
    return re.sub(r"[^A-Za-z0-9_\-]+", "-", folder_name).strip("-_")[:64] or "study"


def write_study(
    out: Path,
    situations: list[Situation],
    *,
    file: str = SITUATIONS_FILE,
    write=write_situations,
    starter: Callable[[str], str] | None = None,
    extra: dict[str, str] | None = None,
) -> bool:
    """Write situations.jsonl (and study.toml when absent) into a staging dir next
    to `out` and swap it into place only once everything is written.

    Files already in `out` (its study.toml, stored answers) are carried over. Another
    data file (`file`, written by `write`) and starter study.toml (`starter(study_id)`)
    serve other study kinds (importers/conversations.py); `extra` (name -> text) replaces
    other files of the folder in the same swap (an edited study.toml). Returns True when a
    new study.toml was written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.import-", dir=out.parent))
    try:
        if out.is_dir():
            for entry in out.iterdir():
                if entry.name == file:
                    continue
                dest = staging / entry.name
                if entry.is_dir():
                    shutil.copytree(entry, dest)
                else:
                    shutil.copy2(entry, dest)
        elif out.exists():
            raise DatasetError(Problem(str(out), "exists and is not a folder: choose another --out"))
        write(staging / file, situations)
        for name, text in (extra or {}).items():
            (staging / name).write_text(text, encoding="utf-8")
        new_toml = not (staging / "study.toml").exists()
        if new_toml and starter is not None:
            (staging / "study.toml").write_text(starter(study_id(out.name)), encoding="utf-8")
        elif new_toml:
            from infact.study.starter.template import render_study_toml  # the lead's module

            toml = render_study_toml(
                study_id(out.name),
                ordered_systems(situations),
                [SITUATIONS_FILE],
                attention_situation=situations[0].situation_id if situations else None,
            )
            (staging / "study.toml").write_text(toml, encoding="utf-8")
        os.chmod(staging, 0o755)  # mkdtemp makes it 0700
        replace_dir(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return new_toml


def cut_meta(turns: list[Turn], k: int) -> dict:
    """meta for the situation whose context is turns[:k]."""
    return {
        "turn": k,
        "n_turns": len(turns),
        "relative_position": round(k / len(turns), 4),
        "item_mentioned": any(mentions_item(t.text) for t in turns[:k]),
    }


MAX_NAME = 100  # characters of a file name made from an id (file systems allow 255 bytes; leave room)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def has_control(text: str) -> bool:
    """A NUL or another control character: never part of an id or a name a person reads."""
    return bool(_CONTROL.search(text))


def short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def file_names(
    ids: Iterable[str], suffix: str, file: str, what: str = "system"
) -> tuple[dict[str, str], list[Problem]]:
    """A distinct, safe file name for each id, and a warning for every name that is not the plain one.

    Letters, digits, '.', '_' and '-' are kept, anything else becomes '_' (a leading '.' too: no hidden
    files). Ids that would share a name (`a/b`, `a_b`, `a:b`; `café`, `cafè`; `KBRD` and `kbrd`, one file
    on macOS and Windows) keep it only for the id that is its name exactly; the others get a short hash of
    the id, and a warning names both. A name longer than MAX_NAME is cut and given the hash as well."""
    ids = sorted(set(ids))
    base = {i: re.sub(r"^\.", "_", _UNSAFE.sub("_", i)) for i in ids}
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(base[i][:MAX_NAME].casefold(), []).append(i)
    names, problems = {}, []
    for members in groups.values():
        plain = next((i for i in members if base[i] == i and len(i) <= MAX_NAME), None)
        if plain is None and len(members) == 1 and len(base[members[0]]) <= MAX_NAME:
            plain = members[0]  # alone with its name: `a b` alone is simply `a_b`
        for i in members:
            if i == plain:
                names[i] = base[i] + suffix
                continue
            names[i] = f"{base[i][: MAX_NAME - 9]}-{short_hash(i)}{suffix}"
            if len(base[i]) > MAX_NAME and len(members) == 1:
                why = f"{what} id of {len(i)} characters: its file name is cut to {names[i]}"
            else:
                other = plain if plain is not None else next(m for m in members if m != i)
                why = f"{what}s {other!r} and {i!r} would share the file name {base[other][:MAX_NAME]}{suffix}"
                why += f": {i!r} is written to {names[i]}"
            problems.append(Problem(file, why, key=what))
    if len({n.casefold() for n in names.values()}) != len(names):  # a hashed name met a plain one: never merge
        raise DatasetError(Problem(file, f"{what} ids give clashing file names even with a hash: rename them"))
    return names, problems


MAX_CELL = 131_072  # Python's own csv field size limit, held here too: frictionless raises it for the process


def csv_rows(reader, file: str):
    """Iterate a csv reader, turning its errors (a cell over the field size limit, often a quote left open,
    which makes the rest of the file one cell) into one DatasetError naming file:line. The limit is
    `MAX_CELL` whatever another library has set `csv.field_size_limit` to."""
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _unreadable(file, str(exc), reader.line_num + 1) from None  # the bad row starts on the next
        if _longest_cell(row) > MAX_CELL:
            raise _unreadable(file, f"a cell of more than {MAX_CELL:,} characters", reader.line_num)
        yield row


def _longest_cell(row) -> int:
    """A csv.reader row (a list) or a DictReader one (a dict; cells past the header under the key None)."""
    cells = row.values() if isinstance(row, dict) else row
    return max((len(c) if isinstance(c, str) else _longest_cell(c or []) for c in cells), default=0)


def _unreadable(file: str, why: str, line: int) -> DatasetError:
    return DatasetError(
        Problem(
            file,
            f"unreadable CSV ({why}): check for a quote left open or a cell of more than {MAX_CELL:,} "
            "characters, and save the file as plain CSV",
            line,
        )
    )


def refuse_foreign(out: Path, files: dict[str, bytes], command: str, ours: Callable[[str, str], bool]) -> None:
    """Refuse to overwrite a file of `out` that `command` did not write: `ours(name, first_line)` says
    whether an existing file's first line is what this importer writes there (an earlier import)."""
    for name in files:
        path = out / name
        if not path.exists():
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                first = fh.readline(100_000).rstrip("\r\n")
        except OSError:
            first = None
        if first is None or not ours(name, first):
            raise DatasetError(
                Problem(
                    str(path),
                    f"exists and was not written by `python -m infact import {command}`: move it away or "
                    "choose another folder (an import replaces only its own files)",
                )
            )
