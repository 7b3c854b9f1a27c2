"""Helpers shared by the importers: title normalisation, matching keys, the
import report and the staging-dir write that never half-writes a study."""

from __future__ import annotations

import csv
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


def load_movies_csv(path: Path) -> tuple[dict[str, str], list[Problem]]:
    """ReDial's movies_with_mentions.csv (movieId,movieName,nbMentions) -> {id: title}."""
    name = str(path)
    rows = list(csv.reader(read_text(path).splitlines()))
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
) -> bool:
    """Write situations.jsonl (and study.toml when absent) into a staging dir next
    to `out` and swap it into place only once everything is written.

    Files already in `out` (its study.toml, stored answers) are carried over. Another
    data file (`file`, written by `write`) and starter study.toml (`starter(study_id)`)
    serve other study kinds (importers/conversations.py). Returns True when a new
    study.toml was written."""
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
        new_toml = not (staging / "study.toml").exists()
        if new_toml and starter is not None:
            (staging / "study.toml").write_text(starter(study_id(out.name)), encoding="utf-8")
        elif new_toml:
            from infact.study.template import render_study_toml  # the lead's module

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
