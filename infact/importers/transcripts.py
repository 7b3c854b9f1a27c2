"""Live-chat transcripts (transcripts.jsonl from `export`, docs/live.md) -> study situations.

Every participant message that got a usable answer becomes a situation: the chat up to that
message as the context, the system's actual answer as its response, so a second study can
have other people rate the live answers turn by turn (as ParlAI's model_chat annotations
do). A situation holds one system's answer, so one study is made per system: give
`--system` when the file holds several. Failed answer attempts are left out of the
contexts; malformed lines are reported as warnings and skipped.
"""

from __future__ import annotations

from pathlib import Path

from infact.chat.transcripts import parse_transcripts
from infact.errors import DatasetError, Problem
from infact.importers.common import ImportReport, clean_text, cut_meta, write_study
from infact.study.situations import Situation, Turn


def dialog_of(conv: dict) -> list[tuple[Turn, list[str]]]:
    """The clean dialog: participant messages and usable answers (with their items)."""
    return [
        (Turn("user" if t["role"] == "user" else "bot", clean_text(t["text"])), list(t.get("items") or []))
        for t in conv["turns"]
        if t["role"] == "user" or not t.get("error")
    ]


def situations_of(conv: dict, file: str, line: int) -> list[Situation]:
    dialog = dialog_of(conv)
    turns = [t for t, _ in dialog]
    out = []
    for k in range(1, len(turns)):
        if turns[k - 1].role != "user" or turns[k].role != "bot":
            continue  # a message the system never answered
        out.append(
            Situation(
                situation_id=f"{conv['conversation_id']}-t{k}",
                dialog_id=conv["conversation_id"],
                context=tuple(turns[:k]),
                responses={conv["system"]: turns[k].text},
                source={
                    "format": "infact-transcripts",
                    "file": Path(file).name,
                    "line": line,
                    "participant": conv["participant"],
                    "items": dialog[k][1],
                },
                meta={**cut_meta(turns, k), "ended_by": conv.get("ended_by")},
            )
        )
    return out


def import_transcripts(path: str | Path, out: str | Path, system: str | None = None) -> ImportReport:
    path, out = Path(path), Path(out)
    report = ImportReport(out)
    convs, report.problems = parse_transcripts(path)
    systems = sorted({c["system"] for _, c in convs})
    if system is None and len(systems) > 1:
        raise DatasetError(
            Problem(
                str(path),
                f"holds chats with {', '.join(systems)}; a situation shows one system's "
                "answer, so import one system per study with --system NAME",
            )
        )
    chosen = [(n, c) for n, c in convs if system is None or c["system"] == system]
    if not chosen:
        raise DatasetError(
            Problem(str(path), f"no chat with system {system!r}; the file has {', '.join(systems) or 'none'}")
        )
    situations = [s for n, c in chosen for s in situations_of(c, str(path), n)]
    if not situations:
        raise DatasetError(Problem(str(path), "no participant message with a usable answer: nothing to rate"))
    new_toml = write_study(out, situations)
    report.counts = {"conversations": len(chosen), "situations": len(situations), "lines_skipped": len(report.problems)}
    if new_toml:
        report.notes.append("wrote a starter study.toml: edit its texts before running the study")
    return report
