"""`python -m infact import infact-export FILE.json --systems Our=NAME,… --out DIR`.

Reads the Firebase export of the original INFACT app,
`{"CRS_Study": {participant: {"1": trial, …, "Questionnaire": {"Demographic": {…},
"Feedback": {…}}}}}`, into the long tables of docs/data-model.md plus INFACT's
Excel sheets. Real exports are messy: ratings are strings, responses carry trailing
whitespace, unfinished participants have no questionnaire, and Firebase turns an
object keyed "1", "2", … into an array with `null` holes. See docs/migration.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from infact.errors import DatasetError, Problem
from infact.fileio import loads_json, swap_in
from infact.importers.common import ImportReport, read_text
from infact.importers.infact_export_values import (
    DEFAULT_RULE,
    LABELS,
    CheckRule,
    clean_text,
    number,
    parse_rating,
    whole_number,
)
from infact.participation.steps.situation import RATINGS
from infact.results.tables.formats import infact_workbook_bytes
from infact.table_schema import csv_bytes
from infact.values import point_to_label

STUDY = "infact-import"
CRITERION = "meaningful"
TRIAL_FIELDS = {"Dialog_ID", "Fragment", "Time"}
# The ratings table's own columns (the step kind's schema), then what the original INFACT export adds.
RATINGS_COLUMNS = [*RATINGS.names, "exclusion_reason", "response", "context"]
PARTICIPANT_COLUMNS = [
    "participant",
    "study",
    "status",
    "attention_passed",
    "excluded",
    "reason",
    "n_trials",
    "completion_code",
    "group",
    "total_seconds",
]
ANSWER_COLUMNS = ["participant", "item", "answer"]


@dataclass
class ImportedTables:
    ratings: pd.DataFrame
    participants: pd.DataFrame
    questionnaire: pd.DataFrame
    demographics: pd.DataFrame
    problems: list[Problem] = field(default_factory=list)


def _entries(node: Any) -> list[tuple[str, Any]]:
    """A participant node as (key, value) pairs: Firebase stores objects keyed 1..n
    as arrays with null holes (index 0 is always null)."""
    if isinstance(node, list):
        return [(str(i), v) for i, v in enumerate(node) if v is not None]
    if isinstance(node, dict):
        return [(str(k), v) for k, v in node.items() if v is not None]
    return []


def _get(obj: dict, name: str) -> Any:
    """Key lookup tolerant of INFACT's changing capitalisation ('Hitcode' / 'hitcode')."""
    for key, value in obj.items():
        if key.lower() == name.lower():
            return value
    return None


def response_keys(study: dict) -> list[str]:
    """System keys present in the export: 'Our' for 'Our_response' / 'Our_rating'."""
    seen: dict[str, None] = {}
    for node in study.values():
        for key, trial in _entries(node):
            if key.isdigit() and isinstance(trial, dict):
                for name in trial:
                    if name.endswith("_response") or name.endswith("_rating"):
                        seen.setdefault(name.rsplit("_", 1)[0], None)
    return list(seen)


def load_export(path: Path) -> dict:
    name = str(path)
    try:
        data = loads_json(read_text(path))
    except json.JSONDecodeError as exc:
        raise DatasetError(
            Problem(
                name,
                f"not valid JSON ({exc.msg} at column {exc.colno}): export the database again "
                "from the Firebase console (⋮ > Export JSON)",
                exc.lineno,
            )
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("CRS_Study"), (dict, list)):
        found = sorted(data)[:5] if isinstance(data, dict) else type(data).__name__
        raise DatasetError(
            Problem(
                name,
                f"no 'CRS_Study' node at the top (found {found}): is this INFACT's Firebase export? "
                'If you exported only the CRS_Study node, wrap it as {"CRS_Study": …}',
                key="CRS_Study",
            )
        )
    study = data["CRS_Study"]
    return dict(_entries(study)) if isinstance(study, list) else study


def check_systems(study: dict, systems: dict[str, str], file: str) -> None:
    found = response_keys(study)
    problems = []
    unmapped = [k for k in found if k not in systems]
    if unmapped:
        suggestion = ",".join(f"{k}={k}" for k in found)
        problems.append(
            Problem(
                file,
                f"response keys {unmapped} have no system name; the file has {found}: "
                f"pass --systems {suggestion} with the real system names",
                key="--systems",
            )
        )
    unknown = [k for k in systems if k not in found]
    if unknown:
        problems.append(
            Problem(file, f"--systems names {unknown}, which no trial has; the file has {found}", key="--systems")
        )
    if problems:
        raise DatasetError(problems)


class _Importer:
    def __init__(self, file: str, systems: dict[str, str], rule: CheckRule):
        self.file, self.systems, self.rule = file, systems, rule
        self.ratings: list[dict] = []
        self.participants: list[dict] = []
        self.questionnaire: list[dict] = []
        self.demographics: list[dict] = []
        self.problems: list[Problem] = []
        self.fragments: dict[str, str] = {}  # situation id -> fragment hash, to catch clashes

    def warn(self, message: str, pid: str, key: str | None = None) -> None:
        self.problems.append(Problem(self.file, message, key=f"CRS_Study/{pid}" + (f"/{key}" if key else "")))

    def situation_id(self, dialog: Any, fragment: list[str], check: bool) -> str:
        # Same dialog cut after the same number of turns = same situation.
        base = f"{dialog}-f{len(fragment)}" + ("-check" if check else "")
        digest = hashlib.sha1("\n".join(fragment).encode("utf-8")).hexdigest()[:6]
        if self.fragments.setdefault(base, digest) != digest:
            return f"{base}-{digest}"  # same cut, other text: keep the situations apart
        return base

    def participant(self, pid: str, node: Any) -> None:
        answers: dict = {}
        trials: list[tuple[int, dict]] = []
        for key, value in _entries(node):
            if key == "Questionnaire" and isinstance(value, dict):
                answers = value
            elif key.isdigit() and isinstance(value, dict):
                trials.append((int(key), value))
            else:
                self.warn(
                    f"unexpected entry {key!r} ignored (expected trials '1', '2', … and 'Questionnaire')", pid, key
                )
        checks = [(i, t) for i, t in trials if self.rule.matches(t)]
        passed = self.check_passed(pid, checks)
        check_keys = {i for i, _ in checks}
        rows = [row for i, t in sorted(trials, key=lambda x: x[0]) for row in self.trial(pid, i, t, i in check_keys)]
        demographic, feedback = _get(answers, "Demographic") or {}, _get(answers, "Feedback") or {}
        for table, section in ((self.demographics, demographic), (self.questionnaire, feedback)):
            if isinstance(section, dict):
                table.extend({"participant": pid, "item": k, "answer": v} for k, v in section.items())
        self.participants.append(
            {
                "participant": pid,
                "study": STUDY,
                "status": "completed" if feedback else "in_progress",
                "attention_passed": passed,
                "excluded": False,
                "reason": None,
                "n_trials": len(trials) - len(checks),
                "completion_code": _get(feedback, "Hitcode") if isinstance(feedback, dict) else None,
                "group": _get(feedback, "Group") if isinstance(feedback, dict) else None,
                "total_seconds": number(_get(feedback, "Total_study_time")) if isinstance(feedback, dict) else None,
            }
        )
        self.ratings.extend(rows)

    def check_passed(self, pid: str, checks: list[tuple[int, dict]]) -> bool | None:
        if not checks:
            return None
        for i, trial in checks:
            value = trial.get(f"{self.rule.rated}_rating")
            rating = parse_rating(value)
            if rating is None:
                self.warn(f"attention-check rating {value!r} is not 1..{len(LABELS)}: counted as failed", pid, str(i))
            elif rating <= self.rule.max_rating:
                return True
        return False

    def trial(self, pid: str, index: int, trial: dict, check: bool) -> Iterable[dict]:
        where = str(index)
        dialog = whole_number(trial.get("Dialog_ID"))
        if dialog is None:
            self.warn(f"Dialog_ID {trial.get('Dialog_ID')!r} is not a number: kept as text", pid, where)
            dialog = str(trial.get("Dialog_ID"))
        fragment = trial.get("Fragment")
        fragment = (
            [str(t).strip() for t in fragment if t is not None]
            if isinstance(fragment, list)
            else ([fragment.strip()] if isinstance(fragment, str) else [])
        )
        sid = self.situation_id(dialog, fragment, check)
        seconds = number(trial.get("Time"))  # INFACT stored end - start of the page, in seconds
        for key, system in self.systems.items():
            if f"{key}_rating" not in trial and f"{key}_response" not in trial:
                self.warn(f"no {key}_rating / {key}_response: {system} has no rating in this trial", pid, where)
                continue
            raw = trial.get(f"{key}_rating")
            rating = parse_rating(raw)
            if rating is None:
                self.warn(
                    f"{key}_rating {raw!r} is not a rating 1..{len(LABELS)} (or a scale label): row skipped", pid, where
                )
                continue
            yield {
                "participant": pid,
                "study": STUDY,
                "dataset_version": None,
                "step_index": index,
                "situation_id": sid,
                "dialog_id": dialog,
                "system": system,
                "criterion": CRITERION,
                "rating": rating,
                "rating_label": point_to_label(rating, LABELS),
                "position": None,
                "seconds": seconds,
                "is_attention_check": check,
                "shown_at": None,
                "answered_at": None,
                "excluded": False,
                "exclusion_reason": None,
                "response": clean_text(trial.get(f"{key}_response")),
                "context": "\n".join(fragment),
            }


def _mark_excluded(importer: _Importer, exclude: set[str], exclude_incomplete: bool) -> None:
    reasons: dict[str, str] = {}
    for p in importer.participants:
        why = []
        if p["attention_passed"] is None:
            why.append("no attention-check trial")
        elif not p["attention_passed"]:
            why.append("failed the attention check")
        if exclude_incomplete and p["status"] != "completed":
            why.append("did not finish (no questionnaire)")
        if p["participant"] in exclude:
            why.append("on the exclusion list")
        if why:
            reasons[p["participant"]] = p["reason"] = "; ".join(why)
            p["excluded"] = True
    for row in importer.ratings:
        if row["participant"] in reasons:
            row["excluded"], row["exclusion_reason"] = True, reasons[row["participant"]]


def import_infact_export(
    path,
    systems: dict[str, str],
    *,
    exclude: Iterable[str] = (),
    check_rule: CheckRule = DEFAULT_RULE,
    exclude_incomplete: bool = False,
) -> ImportedTables:
    """The export at `path` as long tables. `systems` maps response keys ('Our',
    'Deep_crs', 'Kbrd') to system names and must cover every key in the file.
    Participants without a passed attention check, or listed in `exclude`, get
    `excluded = True`; their rows stay in the tables."""
    path = Path(path)
    study = load_export(path)
    check_systems(study, systems, str(path))
    if check_rule.rated not in systems:
        raise DatasetError(
            Problem(
                str(path),
                f"the attention-check rule rates {check_rule.rated!r}, which is not among "
                f'{list(systems)}: set "rated" in --check-rule',
                key="--check-rule",
            )
        )
    importer = _Importer(str(path), systems, check_rule)
    for pid, node in study.items():
        if node is None:
            continue
        if not isinstance(node, (dict, list)):
            importer.warn("participant entry is not an object: ignored", str(pid))
            continue
        importer.participant(str(pid), node)
    exclude = {str(e) for e in exclude}
    for pid in sorted(exclude - {p["participant"] for p in importer.participants}):
        importer.problems.append(
            Problem(str(path), f"excluded participant {pid!r} is not in the export: check the list", key="--exclude")
        )
    _mark_excluded(importer, exclude, exclude_incomplete)
    return ImportedTables(
        ratings=pd.DataFrame(importer.ratings, columns=RATINGS_COLUMNS),
        participants=pd.DataFrame(importer.participants, columns=PARTICIPANT_COLUMNS),
        questionnaire=pd.DataFrame(importer.questionnaire, columns=ANSWER_COLUMNS),
        demographics=pd.DataFrame(importer.demographics, columns=ANSWER_COLUMNS),
        problems=importer.problems,
    )


def write_tables(out: Path, tables: ImportedTables) -> list[Path]:
    """The four tables and INFACT's workbook into `out`, all or nothing (fileio.swap_in); other files there
    are left as they are."""
    # Participants' text as text: a cell a spreadsheet would run as a formula gets a quote (table_schema.py).
    files = {f"{name}.csv": csv_bytes(getattr(tables, name)) for name in TABLES}
    files["infact_sheets.xlsx"] = infact_workbook_bytes(
        tables.ratings, tables.participants, tables.questionnaire, tables.demographics
    )
    return swap_in(Path(out), files)


TABLES = ("ratings", "participants", "questionnaire", "demographics")


def parse_systems(text: str) -> dict[str, str]:
    systems: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, name = part.partition("=")
        if not sep or not key.strip() or not name.strip():
            raise DatasetError(
                Problem(
                    "--systems",
                    f"{part!r} should be KEY=NAME, e.g. Our=RB-CRS,Deep_crs=KGSF,Kbrd=KBRD",
                    key="--systems",
                )
            )
        systems[key.strip()] = name.strip()
    return systems


def read_exclude_list(path: Path) -> set[str]:
    """One participant id per line (first CSV field); blank lines, '#' comments and a
    'participant' header are skipped."""
    ids = set()
    for line in read_text(path).splitlines():
        pid = line.split("#", 1)[0].split(",", 1)[0].strip().strip('"')
        if pid and pid.lower() != "participant":
            ids.add(pid)
    return ids


def summary(out: Path, tables: ImportedTables) -> ImportReport:
    """What the import found, for the command's printout."""
    p = tables.participants
    report = ImportReport(Path(out), problems=tables.problems)
    report.counts = {
        "participants": len(p),
        "passed_attention_check": int((p["attention_passed"] == True).sum()),  # noqa: E712 (None = no check)
        "excluded": int(p["excluded"].sum()),
        "ratings": int((~tables.ratings["is_attention_check"]).sum()),
        "situations": int(tables.ratings.loc[~tables.ratings["is_attention_check"], "situation_id"].nunique()),
    }
    report.notes = [
        "wrote ratings.csv, participants.csv, questionnaire.csv, demographics.csv, infact_sheets.xlsx",
        "ratings.csv is the input of `python -m infact analyze`",
    ]
    return report
