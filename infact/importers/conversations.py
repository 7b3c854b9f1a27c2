"""`python -m infact import conversations FILE --system NAME --study DIR`: one system's whole
conversations into a dialog-level (ACUTE-style) study's dialogs.jsonl.

FILE is JSON Lines, one conversation per line: `{"dialog_id": "…", "turns": [{"role": "user",
"text": "…"}, {"role": "bot", "text": "…"}, …]}` plus an optional `topic` shown above the pair.
Roles `assistant`, `recommender` and `model` count as `bot`; `seeker` and
`human` as `user`. Import one file per system into the same study: conversations with the same
dialog_id (the same seed, opening or topic) are the ones compared (infact/study/dialogs.py).
Importing a system again replaces its conversations. A live study's transcripts.jsonl
(`export`, docs/live.md) is read as such a file too: its dialog_id is the participant, since in
arena mode one participant chats with two systems about the same request, so those two chats are
the pair. Failed answer attempts are left out. Malformed lines are warnings (file:line: what to
fix) and skipped; a file with no usable conversation is an error.
"""

from __future__ import annotations

import re
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.importers.common import ImportReport, clean_text, read_text, write_study
from infact.study.dialogs import DIALOGS_FILE, bot_text, parse_turns, read_dialogs, write_dialogs
from infact.study.situations import Situation, Turn, json_lines

ROLE_ALIASES = {
    "user": "user",
    "seeker": "user",
    "human": "user",
    "bot": "bot",
    "assistant": "bot",
    "recommender": "bot",
    "model": "bot",
}
STARTER_TOML = Path(__file__).resolve().parents[2] / "data" / "demo-acute" / "study.toml"


def _turns(obj: dict, file: str, line: int) -> tuple[tuple[Turn, ...], Problem | None]:
    raw = obj.get("turns")
    if isinstance(raw, list):
        raw = [
            {
                **t,
                "role": ROLE_ALIASES.get(str(t.get("role", "")).lower(), t.get("role")),
                "text": clean_text(t["text"]) if isinstance(t.get("text"), str) else t.get("text"),
            }
            if isinstance(t, dict)
            else t
            for t in raw
        ]
    turns, why = parse_turns(raw)
    if why:
        return (), Problem(
            file, f"'turns' {why} (roles: user or bot; assistant/seeker are accepted); line skipped", line, "turns"
        )
    return turns, None


def _from_lines(path: Path) -> tuple[list[tuple[int, dict]], list[Problem]]:
    rows, problems = json_lines(read_text(path), str(path), "one conversation (a JSON object) per line; line skipped")
    good = []
    for line, obj in rows:
        if not isinstance(obj, dict):
            problems.append(
                Problem(str(path), 'expected a JSON object {"dialog_id": …, "turns": [...]}; line skipped', line)
            )
        else:
            good.append((line, obj))
    return good, problems


def _is_transcripts(rows: list[tuple[int, dict]]) -> bool:
    return bool(rows) and all("conversation_id" in o and "participant" in o for _, o in rows[:5])


def conversations_of(path: Path, system: str) -> tuple[dict[str, tuple[str, tuple[Turn, ...], int]], list[Problem]]:
    """dialog_id → (topic, turns, line) of `system`'s conversations in the file, and the problems."""
    rows, problems = _from_lines(path)
    transcripts = _is_transcripts(rows)
    if transcripts:
        from infact.chat.transcripts import parse_transcripts
        from infact.importers.transcripts import dialog_of

        rows, problems = parse_transcripts(path)
        rows = [
            (n, {"dialog_id": c["participant"], "turns": [t.to_dict() for t, _ in dialog_of(c)]})
            for n, c in rows
            if c["system"] == system
        ]
    out: dict[str, tuple[str, tuple[Turn, ...], int]] = {}
    for line, obj in rows:
        did = obj.get("dialog_id")
        did = str(did).strip() if isinstance(did, (str, int)) else ""
        if not did:
            problems.append(
                Problem(
                    str(path),
                    "missing 'dialog_id' (the seed or opening shared with the other "
                    "systems' conversations); line skipped",
                    line,
                    "dialog_id",
                )
            )
            continue
        if did in out:
            problems.append(
                Problem(
                    str(path),
                    f"dialog_id '{did}' again (first at line {out[did][2]}): a system has "
                    "one conversation per dialog; line skipped",
                    line,
                    "dialog_id",
                )
            )
            continue
        turns, problem = _turns(obj, str(path), line)
        if problem:
            problems.append(problem)
            continue
        topic = obj.get("topic", "")
        out[did] = (topic if isinstance(topic, str) else "", turns, line)
    return out, problems


def starter_toml(systems: list[str], first_dialog: str) -> callable:
    """A study.toml for a new dialog-level study: the ACUTE demo's, with this study's names."""

    def render(study_id: str) -> str:
        text = STARTER_TOML.read_text(encoding="utf-8")
        text = re.sub(
            r"\A(#.*\n)+",
            "# Study created by `python -m infact import conversations`: edit the texts and "
            "import the other systems, then\n# run `python -m infact validate <this folder>`.\n",
            text,
        )
        text = re.sub(r'(?m)^id = ".*"$', f'id = "{study_id}"', text, count=1)
        text = re.sub(
            r"(?m)^systems = \[.*\]$", "systems = [" + ", ".join(f'"{s}"' for s in systems) + "]", text, count=1
        )
        text = re.sub(
            r'(?m)^situation = ".*$',
            f'situation = "{first_dialog}"  # this dialog is used only for the check',
            text,
            count=1,
        )
        return re.sub(r"(?m)^onboarding = .*\n", "", text, count=1)  # gold pairs are the researcher's to write

    return render


def import_conversations(
    path: str | Path, out: str | Path, system: str, dialogs_file: str = DIALOGS_FILE
) -> ImportReport:
    path, out = Path(path), Path(out)
    _refuse_other_kinds(out / "study.toml")
    report = ImportReport(out)
    found, report.problems = conversations_of(path, system)
    if not found:
        raise DatasetError(
            report.problems
            + [
                Problem(
                    str(path), f"no usable conversation of system {system!r}: fix the lines above or check --system"
                )
            ]
        )
    existing: list[Situation] = []
    if (out / dialogs_file).exists():
        existing, problems = read_dialogs([out / dialogs_file])
        if problems:
            raise DatasetError(problems)
    merged = _merge(existing, found, system, path)
    replaced = sum(1 for d in existing if system in d.conversations)
    systems = list(dict.fromkeys(s for d in merged for s in d.conversations))
    listed, notes = _list_system(out / "study.toml", system) if (out / "study.toml").exists() else (None, [])
    new_toml = write_study(
        out,
        merged,
        file=dialogs_file,
        write=write_dialogs,
        starter=starter_toml(systems, merged[0].dialog_id),
        extra={"study.toml": listed} if listed is not None else None,  # in the same swap: all or nothing
    )
    report.counts = {"conversations": len(found), "dialogs": len(merged), "lines_skipped": len(report.problems)}
    if replaced:
        report.notes.append(f"replaced {system}'s conversations from an earlier import")
    alone = sum(1 for d in merged if len(d.conversations) < 2)
    if alone:
        report.notes.append(f"{alone} dialog(s) have one system's conversation only: import the other systems' files")
    if new_toml:
        report.notes.append("wrote a starter study.toml (ACUTE-style): edit its texts and add onboarding gold pairs")
    else:
        report.notes.extend(notes)
    return report


def _refuse_other_kinds(toml: Path) -> None:
    """Conversations belong in a dialog-level study: never add them (or a system) to a rating study."""
    import tomllib

    if not toml.is_file():
        return
    try:
        kind = tomllib.loads(toml.read_text(encoding="utf-8")).get("protocol", {}).get("kind", "rating")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        kind = None
    if kind != "pairwise_dialog":
        raise DatasetError(
            Problem(
                str(toml),
                f"is a {kind or 'unreadable'} study, not a dialog-level one: whole "
                'conversations go into a study with [protocol] kind = "pairwise_dialog". Give a new '
                "--study folder (a starter study.toml is written) or set that kind first.",
                key="protocol.kind",
            )
        )


def _list_system(toml: Path, system: str) -> tuple[str | None, list[str]]:
    """study.toml's text with `system` added to its `[study] systems` (a one-line list) so the pairs include
    it (None: leave the file as it is), and what to tell the researcher."""
    import json
    import tomllib

    try:
        text = toml.read_text(encoding="utf-8")
        systems = tomllib.loads(text).get("study", {}).get("systems")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None, [f"could not read {toml}: add {system!r} to [study] systems by hand"]
    if not isinstance(systems, list) or system in systems:
        return None, []
    new, n = re.subn(
        r"(?m)^systems = \[.*\]", "systems = " + json.dumps([*systems, system], ensure_ascii=False), text, count=1
    )
    if not n:
        return None, [
            f"add {system!r} to [study] systems in {toml} (its list spans several lines, so it was left as it is)"
        ]
    return new, [f"added {system!r} to [study] systems in {toml}"]


def _merge(existing: list[Situation], found: dict, system: str, path: Path) -> list[Situation]:
    """The study's dialogs with `system`'s conversations put in (replacing an earlier import's)."""
    by_id = {d.dialog_id: d for d in existing}
    for did, (topic, turns, line) in found.items():
        old = by_id.get(did)
        convs = {**(old.conversations if old else {}), system: turns}
        source = {**(old.source if old else {}), system: {"file": path.name, "line": line}}
        by_id[did] = Situation(
            situation_id=did,
            dialog_id=did,
            context=(),
            responses={s: bot_text(t) for s, t in convs.items()},
            source=source,
            meta={**(old.meta if old else {}), "topic": (old.meta.get("topic") if old else "") or topic},
            conversations=convs,
        )
    return list(by_id.values())
