"""`python -m infact import redial FILE.jsonl --study STUDY_DIR [--movies CSV]`.

ReDial raw JSONL, one dialog per line. The seeker (initiatorWorkerId) becomes
"user", the recommender "bot"; consecutive messages of one sender are merged into
one turn; `@12345` becomes the quoted, normalised title. Every recommender turn
right after a seeker turn is the ground truth of the "Human (ReDial)" system for
the situation cut just before it. HTML entities of the raw data (`&quot;`, `&amp;`,
`&gt;`) are decoded here; the text is escaped again when it is shown. The titles the
dialog mentions by @id are kept in `meta.items`, so only items are highlighted.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.fileio import loads_json
from infact.importers.common import (
    HUMAN_SYSTEM,
    ImportReport,
    clean_text,
    cut_meta,
    movies_for,
    read_text,
    replace_mentions,
    write_study,
)
from infact.study.situations import Situation, Turn
from infact.text.items import normalise_title

_MENTION = re.compile(r"@(\d+)")


def mentioned_titles(texts, *titles: dict[str, str]) -> list[str]:
    """Normalised titles of the @ids in `texts` that a mapping knows, in first-mention order."""
    found: list[str] = []
    for text in texts:
        for mid in _MENTION.findall(text):
            title = next((m[mid] for m in titles if (m.get(mid) or "").strip()), None)
            title = normalise_title(html.unescape(title)) if title else None
            if title and title not in found:
                found.append(title)
    return found


def dialog_turns(dialog: dict, movies: dict[str, str], file: str, line: int) -> tuple[list[Turn], list[Problem]]:
    """Merged, cleaned turns of one ReDial dialog, and what was wrong in it."""
    problems: list[Problem] = []
    mentions = dialog.get("movieMentions") or {}  # [] in some dialogs
    if not isinstance(mentions, dict):
        problems.append(
            Problem(file, "'movieMentions' should be an object {id: title}; ignored", line, "movieMentions")
        )
        mentions = {}
    roles = {str(dialog.get("initiatorWorkerId")): "user", str(dialog.get("respondentWorkerId")): "bot"}
    turns: list[Turn] = []
    for i, msg in enumerate(dialog["messages"]):
        if not isinstance(msg, dict) or not isinstance(msg.get("text"), str):
            problems.append(Problem(file, f"messages[{i}] has no 'text' string; message skipped", line, "messages"))
            continue
        role = roles.get(str(msg.get("senderWorkerId")))
        if role is None:
            problems.append(
                Problem(
                    file,
                    f"messages[{i}] senderWorkerId {msg.get('senderWorkerId')!r} is neither initiatorWorkerId "
                    "nor respondentWorkerId; message skipped",
                    line,
                    "messages",
                )
            )
            continue
        text, missing = replace_mentions(msg["text"], mentions, movies)
        text = html.unescape(text)  # raw ReDial holds &quot; &amp; &gt; (titles too)
        for mid in missing:
            problems.append(
                Problem(
                    file,
                    f"movie @{mid} is not in movieMentions{' nor in the movies CSV' if movies else ''}: "
                    f"left as '@{mid}'{'' if movies else ' (pass --movies movies_with_mentions.csv)'}",
                    line,
                    "movieMentions",
                )
            )
        text = clean_text(text)
        if not text:
            continue
        if turns and turns[-1].role == role:  # same sender again: one turn
            turns[-1] = Turn(role, f"{turns[-1].text} {text}")
        else:
            turns.append(Turn(role, text))
    return turns, problems


def _check_dialog(obj, file: str, line: int) -> str | None:
    if not isinstance(obj, dict):
        return "expected one JSON object (a ReDial dialog) per line"
    for key in ("conversationId", "initiatorWorkerId", "respondentWorkerId", "messages"):
        if key not in obj:
            return f"missing '{key}': is this the raw ReDial JSONL (train_data.jsonl / test_data.jsonl)?"
    if not isinstance(obj["messages"], list):
        return "'messages' must be a list of {text, senderWorkerId, ...}"
    return None


def _read_dialog(raw: str, file: str, lineno: int, seen: dict[str, int]) -> tuple[dict | None, Problem | None]:
    """One JSONL line as a dialog, or the problem that skips it (invalid JSON, a bad dialog, a repeated id)."""
    try:
        obj = loads_json(raw)
    except json.JSONDecodeError as exc:
        return None, Problem(file, f"invalid JSON ({exc.msg} at column {exc.colno}); dialog skipped", lineno)
    err = _check_dialog(obj, file, lineno)
    if err:
        return None, Problem(file, err + "; dialog skipped", lineno)
    cid = str(obj["conversationId"]).strip()
    if cid in seen:
        return None, Problem(
            file, f"conversationId {cid} already at line {seen[cid]}; dialog skipped", lineno, "conversationId"
        )
    seen[cid] = lineno
    return obj, None


def _dialog_situations(
    obj: dict, turns: list, items: list[str], system: str, path: Path, lineno: int
) -> tuple[list[Situation], int]:
    """A situation per seeker turn that the recommender answered; and the count of seeker turns left unanswered."""
    cid = str(obj["conversationId"]).strip()
    situations, no_reply = [], 0
    for k in range(1, len(turns) + 1):
        if turns[k - 1].role != "user":
            continue
        if k == len(turns):
            no_reply += 1  # the seeker spoke last: no ground truth to show
            continue
        situations.append(
            Situation(
                situation_id=f"{cid}-t{k}",
                dialog_id=cid,
                context=tuple(turns[:k]),
                responses={system: turns[k].text},
                source={"format": "redial", "file": path.name, "line": lineno, "conversation_id": cid},
                meta={**cut_meta(turns, k), "items": items},
            )
        )
    return situations, no_reply


def import_redial(
    path: str | Path, out: str | Path, movies_csv: str | Path | None = None, system: str = HUMAN_SYSTEM
) -> ImportReport:
    path, out = Path(path), Path(out)
    file = str(path)
    report = ImportReport(out)
    movies = movies_for(movies_csv, report)
    situations: list[Situation] = []
    seen: dict[str, int] = {}
    dialogs = no_reply = skipped = 0
    for lineno, raw in enumerate(read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        obj, problem = _read_dialog(raw, file, lineno, seen)
        if obj is None:
            report.problems.append(problem)
            skipped += 1
            continue
        turns, probs = dialog_turns(obj, movies, file, lineno)
        report.problems.extend(probs)
        mentions = obj.get("movieMentions") if isinstance(obj.get("movieMentions"), dict) else {}
        items = mentioned_titles(
            (m.get("text", "") for m in obj["messages"] if isinstance(m, dict) and isinstance(m.get("text"), str)),
            mentions,
            movies,
        )
        dialogs += 1
        made, unanswered = _dialog_situations(obj, turns, items, system, path, lineno)
        situations += made
        no_reply += unanswered
    if not situations:
        raise DatasetError(
            report.problems
            + [
                Problem(
                    file,
                    "no situation could be made: "
                    "need dialogs in which a seeker message is followed by a recommender message",
                )
            ]
        )
    new_toml = write_study(out, situations)
    report.counts = {
        "dialogs": dialogs,
        "dialogs_skipped": skipped,
        "situations": len(situations),
        "seeker_turns_left_out_(last_turn,_no_reply)": no_reply,
    }
    report.notes.append(f"system: {system} (the recommender's actual reply)")
    report.notes.append("wrote study.toml" if new_toml else "kept the existing study.toml")
    return report
