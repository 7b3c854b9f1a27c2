"""`python -m infact import responses --study STUDY_DIR --system NAME FILE`.

Merges one system's outputs into the study's situations.jsonl. Rows (JSONL or
CSV) are matched to situations by `dialog_id` and either `turn` (the number of
context turns before the response) or `context` (the list of utterances before
it, compared after normalising case, spacing, punctuation and titles).
iEvaLM-CRS records `{dialog_id, turn_id, context, resp, rec}` are accepted too:
iEvaLM makes turns alternate user/system, so a dialog the recommender opens starts
its `context` with an empty utterance "" that `turn_id` counts; it is dropped here.
HTML entities (`&quot;`, `&amp;`, `&gt;`) are decoded like the ReDial import does.
"""

from __future__ import annotations

import csv
import difflib
import html
import json
from dataclasses import replace
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.fileio import loads_json
from infact.importers.common import (
    SITUATIONS_FILE,
    ImportReport,
    clean_text,
    context_key,
    csv_rows,
    loose_key,
    movies_for,
    read_text,
    replace_mentions,
)
from infact.study.situations import Situation, json_lines, read_situations, write_situations

FUZZY_MIN = 0.9  # context similarity needed when no exact normalised match exists


def _rows(path: Path) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """(line, row) pairs from a JSONL or CSV file; CSV `context` cells hold a JSON list."""
    file, text = str(path), read_text(path)
    rows: list[tuple[int, dict]] = []
    problems: list[Problem] = []
    first = text.lstrip()[:1]
    if path.suffix.lower() == ".csv" or (first and first not in "{["):
        reader = csv.DictReader(text.splitlines())
        if not reader.fieldnames or "dialog_id" not in [f.strip() for f in reader.fieldnames]:
            raise DatasetError(
                Problem(file, "CSV needs a header with 'dialog_id', 'response' and 'turn' or 'context'", 1)
            )
        for row in csv_rows(reader, file):
            row = {(k or "").strip(): v for k, v in row.items()}
            ctx = row.get("context")
            if ctx not in (None, ""):
                try:
                    row["context"] = loads_json(ctx)
                except json.JSONDecodeError:
                    problems.append(
                        Problem(
                            file,
                            '\'context\' cell must be a JSON list of utterances, e.g. ["hi", "hello"]; row skipped',
                            reader.line_num,
                            "context",
                        )
                    )
                    continue
            else:
                row.pop("context", None)
            rows.append((reader.line_num, row))
        return rows, problems
    decoded, bad = json_lines(text, file, "one object per line; row skipped")
    problems.extend(bad)
    for lineno, obj in decoded:
        if not isinstance(obj, dict):
            problems.append(
                Problem(file, "expected a JSON object {dialog_id, turn or context, response}; row skipped", lineno)
            )
            continue
        rows.append((lineno, obj))
    return rows, problems


def _context_texts(ctx) -> list[str] | None:
    """Decoded utterances of a row's context; an iEvaLM opening "" (recommender first) dropped."""
    if not isinstance(ctx, list):
        return None
    texts = []
    for t in ctx:
        if isinstance(t, str):
            texts.append(html.unescape(t))
        elif isinstance(t, dict) and isinstance(t.get("text"), str):
            texts.append(html.unescape(t["text"]))
        else:
            return None
    return texts[1:] if texts and not texts[0].strip() else texts


class _Index:
    """Situations of the study, findable by (dialog, turn) and by context."""

    def __init__(self, situations: list[Situation]):
        self.by_dialog: dict[str, list[Situation]] = {}
        self.by_turn: dict[tuple[str, int], Situation] = {}
        self.by_context: dict[tuple[str, ...], list[Situation]] = {}
        self.by_loose: dict[tuple[str, ...], list[Situation]] = {}
        self.bot_first: set[str] = set()  # dialogs the recommender opens
        for s in situations:
            if s.context and s.context[0].role == "bot":
                self.bot_first.add(s.dialog_id)
            self.by_loose.setdefault(context_key((t.text for t in s.context), loose_key), []).append(s)
            self.by_dialog.setdefault(s.dialog_id, []).append(s)
            self.by_turn[(s.dialog_id, int(s.meta.get("turn", len(s.context))))] = s
            self.by_context.setdefault(context_key(t.text for t in s.context), []).append(s)

    def match(self, row: dict) -> tuple[Situation | None, str]:
        """The situation a row answers, or None and why not."""
        did = row.get("dialog_id", row.get("conversation_id"))
        did = None if did is None else str(did).strip()
        ctx = _context_texts(row.get("context"))
        if "context" in row and ctx is None:
            return None, "'context' must be a list of utterances (strings or {role, text})"
        if did is not None and did not in self.by_dialog:
            return None, f"dialog_id '{did}' is not in the study"
        if ctx:
            key = context_key(ctx)
            found = [s for s in self.by_context.get(key, []) if did is None or s.dialog_id == did]
            if not found:  # titles written without quotes
                key = context_key(ctx, loose_key)
                found = [s for s in self.by_loose.get(key, []) if did is None or s.dialog_id == did]
            if len(found) == 1:
                return found[0], ""
            if len(found) > 1:
                return (
                    None,
                    f"context matches {len(found)} situations "
                    f"({', '.join(s.situation_id for s in found[:3])}): add dialog_id",
                )
            if did is not None:  # near match within the dialog, same length only
                joined = "|".join(key)
                best, score = None, 0.0
                for s in self.by_dialog[did]:
                    skey = context_key((t.text for t in s.context), loose_key)
                    if len(skey) == len(key):
                        r = difflib.SequenceMatcher(None, joined, "|".join(skey)).ratio()
                        if r > score:
                            best, score = s, r
                if best is not None and score >= FUZZY_MIN:
                    return best, ""
            return (
                None,
                f"no situation{' of dialog ' + repr(did) if did else ''} has this context "
                f"({len(ctx)} utterances, ending {ctx[-1][:40]!r})",
            )
        turn = row.get("turn", row.get("turn_id"))
        if did is None:
            return None, "missing 'dialog_id'"
        try:
            turn = int(str(turn).strip())
        except ValueError:
            return None, "need 'turn' (number of context turns before the response, an integer) or 'context'"
        if "turn" not in row and did in self.bot_first:
            turn -= 1  # iEvaLM's turn_id counts the empty utterance that opens a recommender-first dialog
        s = self.by_turn.get((did, turn))
        if s is None:
            turns = sorted(int(x.meta.get("turn", len(x.context))) for x in self.by_dialog[did])
            return (
                None,
                f"dialog '{did}' has no situation with turn={turn} (turns there: {', '.join(map(str, turns))}); "
                "turn counts the context turns before the response",
            )
        return s, ""


def _study_situations(target: Path) -> list:
    """The study's situations, which the responses join; refused when the study has none yet or they do not read."""
    if not target.exists():
        raise DatasetError(
            Problem(
                str(target),
                "no situations in this study yet: run `python -m infact import redial` (or infact-txt) first",
            )
        )
    situations, problems = read_situations([target])
    if problems:
        raise DatasetError(problems)
    return situations


def import_responses(
    study: str | Path,
    system: str,
    path: str | Path,
    situations_file: str = SITUATIONS_FILE,
    movies_csv: str | Path | None = None,
) -> ImportReport:
    study, path = Path(study), Path(path)
    system = system.strip()
    if not system:
        raise DatasetError(Problem(str(path), "--system must be a non-empty name, e.g. --system KBRD"))
    target = study / situations_file
    situations = _study_situations(target)
    report = ImportReport(target)
    movies = movies_for(movies_csv, report)
    rows, probs = _rows(path)
    report.problems.extend(probs)
    invalid = len(probs)
    file = str(path)
    new, unmatched, duplicates = _matched_responses(rows, _Index(situations), movies, file, report)
    if not new:
        raise DatasetError(
            report.problems
            + [
                Problem(
                    file,
                    f"no row matched a situation of {target}: "
                    "check dialog_id and turn/context against the study's situations",
                )
            ]
        )
    replaced = sum(1 for s in situations if s.situation_id in new and system in s.responses)
    merged = [
        replace(s, responses={**s.responses, system: new[s.situation_id]}) if s.situation_id in new else s
        for s in situations
    ]
    write_situations(target, merged)
    lacking = sum(1 for s in merged if system not in s.responses)
    report.counts = {
        "rows": len(rows) + invalid,
        "invalid_rows": invalid,
        "matched": len(new),
        "replaced_earlier_responses": replaced,
        "unmatched_rows": unmatched,
        "duplicate_rows": duplicates,
        "situations": len(merged),
        f"situations_lacking_{system}": lacking,
    }
    if lacking:
        report.notes.append(f"{lacking} situation(s) have no {system} response: a study with {system} leaves them out")
    listed = _listed_systems(study / "study.toml")
    if listed is not None and system not in listed:
        report.notes.append(f"'{system}' is not in [study] systems of {study / 'study.toml'}: add it to compare it")
    return report


def _matched_responses(
    rows, index: _Index, movies: dict[str, str], file: str, report: ImportReport
) -> tuple[dict[str, str], int, int]:
    """situation_id -> the row's cleaned response, for every row that matches a situation
    (the first one wins); then how many rows matched none and how many were duplicates."""
    new: dict[str, str] = {}
    first_line: dict[str, int] = {}
    unmatched = duplicates = 0
    for lineno, row in rows:
        text = row.get("response", row.get("resp"))
        text = html.unescape(text) if isinstance(text, str) else text
        if not isinstance(text, str) or not text.strip():
            report.problems.append(
                Problem(file, "missing or empty 'response' (or 'resp'); row skipped", lineno, "response")
            )
            unmatched += 1
            continue
        sit, why = index.match(row)
        if sit is None:
            report.problems.append(Problem(file, f"unmatched: {why}", lineno))
            unmatched += 1
            continue
        if sit.situation_id in new:
            report.problems.append(
                Problem(
                    file,
                    f"duplicate response for situation {sit.situation_id} "
                    f"(first at line {first_line[sit.situation_id]}); kept the first",
                    lineno,
                )
            )
            duplicates += 1
            continue
        text, missing = replace_mentions(text, movies)
        for mid in missing:
            report.problems.append(
                Problem(
                    file,
                    f"movie @{mid} left visible in the response: pass --movies movies_with_mentions.csv",
                    lineno,
                    "response",
                )
            )
        new[sit.situation_id] = clean_text(text)
        first_line[sit.situation_id] = lineno
    return new, unmatched, duplicates


def _listed_systems(toml_path: Path) -> list[str] | None:
    """[study] systems of study.toml, or None when it cannot be read (validate reports that)."""
    import tomllib

    try:
        systems = tomllib.loads(toml_path.read_text(encoding="utf-8")).get("study", {}).get("systems")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return None
    return systems if isinstance(systems, list) else None
