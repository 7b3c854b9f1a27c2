"""`python -m infact import infact-txt --dialogs dialogue_data.txt --system KBRD=KBRD.txt … --study STUDY_DIR`.

The evaluation files of the original INFACT app. All files are blocks opened by
`CONVERSATION:n`. The dialog file has `USER:` / `CHAT-BOT:` lines; a system file
repeats the dialog as `SEEKER: <s> … </s>` / `GROUND TRUTH: <s> … </s>` lines,
with the system's own line after either of them. Each system line answers the
latest SEEKER line before it, whichever the file's layout. SEEKER and GROUND
TRUTH lines are aligned with the dialog by content (case, tokenisation, title
spacing and @ids do not matter), never by line offsets.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.importers.common import ImportReport, clean_text, cut_meta, read_text, text_key, write_study
from infact.study.situations import Situation, Turn

_HEADER = re.compile(r"^\s*CONVERSATION\s*:\s*(\S+)\s*$")
_TAGGED = re.compile(r"^\s*<s>(.*?)</s>\s*$", re.S)
_PLACEHOLDER = re.compile(r"^\**$")  # '*' / '**' where a system produced nothing
MIN_SIMILARITY = 0.5  # of normalised keys; alignment is also positional and role-checked
LOOKAHEAD = 4  # dialog turns a system file may skip before a line counts as unaligned


@dataclass
class Block:
    conv: str
    line: int
    items: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, text, line)


def parse_blocks(path: Path, prefixes: dict[str, str], other: str | None) -> tuple[dict[str, Block], list[Problem]]:
    """Split a file into CONVERSATION blocks of (kind, text, line) items.

    `prefixes` maps a line prefix to its kind; lines without one get kind `other`
    (a system's output) or are reported when `other` is None."""
    file = str(path)
    blocks: dict[str, Block] = {}
    problems: list[Problem] = []
    cur: Block | None = None
    for lineno, raw in enumerate(read_text(path).splitlines(), start=1):
        m = _HEADER.match(raw)
        if m:
            if m.group(1) in blocks:
                problems.append(
                    Problem(
                        file,
                        f"CONVERSATION:{m.group(1)} already starts at line {blocks[m.group(1)].line}; "
                        "this block is skipped",
                        lineno,
                    )
                )
                cur = None
                continue
            cur = blocks[m.group(1)] = Block(m.group(1), lineno)
            continue
        if not raw.strip():
            continue
        if cur is None:
            if not any(b.line > 0 for b in blocks.values()):
                problems.append(Problem(file, "text before the first 'CONVERSATION:n' line; ignored", lineno))
            continue
        for prefix, kind in prefixes.items():
            if raw.startswith(prefix):
                text = raw[len(prefix) :]
                tagged = _TAGGED.match(text)
                cur.items.append((kind, tagged.group(1) if tagged else text, lineno))
                break
        else:
            if other is None:
                problems.append(
                    Problem(
                        file, f"line starts with neither {' nor '.join(repr(p) for p in prefixes)}; ignored", lineno
                    )
                )
            else:
                cur.items.append((other, raw, lineno))
    if not blocks:
        raise DatasetError(Problem(file, "no 'CONVERSATION:n' line found: is this an INFACT evaluation file?"))
    return blocks, problems


def dialog_turns(block: Block) -> list[tuple[Turn, int]]:
    """Turns of a dialog block (consecutive lines of one speaker merged), with their line."""
    turns: list[tuple[Turn, int]] = []
    for kind, text, line in block.items:
        text = clean_text(text)
        if turns and turns[-1][0].role == kind:
            prev, pline = turns[-1]
            turns[-1] = (Turn(kind, f"{prev.text} {text}".strip()), pline)
        else:
            turns.append((Turn(kind, text), line))
    return turns


def _similar(a: str, b: str) -> bool:
    return a == b or difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= MIN_SIMILARITY


def _find_turn(turns: list[tuple[Turn, int]], keys: list[str], j: int, kind: str, text: str) -> int | None:
    """The first dialog turn from `j` (within LOOKAHEAD) of this role whose text is similar, or None."""
    key = text_key(text)
    ahead = range(j, min(j + LOOKAHEAD, len(turns)))
    return next((jj for jj in ahead if turns[jj][0].role == kind and _similar(key, keys[jj])), None)


def _unaligned(file: str, block: Block, kind: str, line: int) -> Problem:
    label = "SEEKER" if kind == "user" else "GROUND TRUTH"
    after = "; the system line after it is not used" if kind == "user" else ""
    return Problem(
        file,
        f"{label} line of CONVERSATION:{block.conv} could not be aligned with the dialog "
        f"(not in the dialog file, or an extra turn){after}",
        line,
    )


def align_block(
    turns: list[tuple[Turn, int]], block: Block, file: str, name: str
) -> tuple[dict[int, tuple[str, int]], list[Problem]]:
    """Responses of one system block, keyed by cut point k (context = turns[:k]);
    a placeholder gives ("", line)."""
    problems: list[Problem] = []
    keys = [text_key(t.text) for t, _ in turns]
    out: dict[int, tuple[str, int]] = {}
    j = 0  # next dialog turn to align
    seeker: int | None | bool = None  # cut point of the latest SEEKER; False if it did not align
    seeker_line = 0
    for kind, text, line in block.items:
        if kind in ("user", "bot"):
            hit = _find_turn(turns, keys, j, kind, text)
            if hit is None:
                problems.append(_unaligned(file, block, kind, line))
            else:
                j = hit + 1
            if kind == "user":
                seeker, seeker_line = (False if hit is None else hit + 1), line
            continue
        if seeker is None or seeker is False:
            continue  # None: answers the bot's opening, not a situation; False: reported with its SEEKER line
        response = clean_text(text)
        if _PLACEHOLDER.match(response):
            problems.append(
                Problem(
                    file,
                    f"placeholder {response or 'empty line'!r} instead of a {name} response "
                    f"(to the SEEKER line {seeker_line}); that situation lacks {name}",
                    line,
                )
            )
            out.setdefault(seeker, ("", line))
        elif seeker in out:
            problems.append(
                Problem(
                    file,
                    f"second {name} line for the SEEKER line {seeker_line} (first at line {out[seeker][1]}); ignored",
                    line,
                )
            )
        else:
            out[seeker] = (response, line)
    return out, problems  # text "" marks a placeholder


Responses = dict[str, dict[str, dict[int, tuple[str, int]]]]  # system -> conversation -> turn k -> (text, line)


def import_infact_txt(
    dialogs: str | Path, systems: list[tuple[str, str | Path]], out: str | Path, ground_truth: str | None = None
) -> ImportReport:
    dialogs, out = Path(dialogs), Path(out)
    report = ImportReport(out)
    names = _system_names(dialogs, systems, ground_truth)
    dblocks, probs = parse_blocks(dialogs, {"USER:": "user", "CHAT-BOT:": "bot"}, None)
    report.problems.extend(probs)
    turns = {conv: dialog_turns(b) for conv, b in dblocks.items()}
    responses = {name: _system_responses(dialogs, turns, name, Path(spath), report) for name, spath in systems}
    cut = _Cutter(dialogs, dblocks, systems, ground_truth, names, responses, report)
    for conv, dturns in turns.items():
        cut.conversation(conv, dturns)
    if not cut.situations:
        raise DatasetError(
            report.problems
            + [
                Problem(
                    str(dialogs),
                    "no situation has a response from every system: "
                    "check that the system files belong to this dialog file",
                )
            ]
        )
    new_toml = write_study(out, cut.situations)
    report.counts = {
        "dialogs": len(turns),
        "cut_points_ending_with_USER": cut.cut_points,
        "situations": len(cut.situations),
        "left_out_(a_system_lacks_a_response)": cut.cut_points - len(cut.situations),
    }
    for n, why in cut.lacking.items():
        if sum(why.values()):
            report.notes.append(
                f"{sum(why.values())} cut point(s) lack a response from {n}: {why['placeholder']} placeholder(s), "
                f"{why['no line']} without a {n} line after the SEEKER line (or not aligned; see warnings)"
            )
    report.notes.append("wrote study.toml" if new_toml else "kept the existing study.toml")
    return report


def _system_names(dialogs: Path, systems: list[tuple[str, str | Path]], ground_truth: str | None) -> list[str]:
    names = [n for n, _ in systems] + ([ground_truth] if ground_truth else [])
    if not systems and not ground_truth:
        raise DatasetError(Problem(str(dialogs), "give at least one --system NAME=FILE"))
    if len(set(names)) != len(names):
        raise DatasetError(Problem(str(dialogs), f"system names must be unique: {', '.join(names)}"))
    return names


def _system_responses(dialogs: Path, turns: dict, name: str, spath: Path, report: ImportReport) -> dict:
    """One system file's responses, aligned with the dialog file: conversation -> turn k -> (text, line)."""
    sblocks, probs = parse_blocks(spath, {"SEEKER:": "user", "GROUND TRUTH:": "bot"}, "system")
    report.problems.extend(probs)
    out = {}
    for conv, block in sblocks.items():
        if conv not in turns:
            report.problems.append(
                Problem(str(spath), f"CONVERSATION:{conv} is not in {dialogs.name}; block ignored", block.line)
            )
            continue
        out[conv], probs = align_block(turns[conv], block, str(spath), name)
        report.problems.extend(probs)
    for conv in turns:
        if conv not in sblocks:
            report.problems.append(
                Problem(str(spath), f"no CONVERSATION:{conv} block ({dialogs.name} has it): its situations lack {name}")
            )
    return out


@dataclass
class _Cutter:
    """Cuts each conversation after every USER turn that every system answered."""

    dialogs: Path
    dblocks: dict[str, Block]
    systems: list[tuple[str, str | Path]]
    ground_truth: str | None
    names: list[str]
    responses: Responses
    report: ImportReport
    situations: list[Situation] = field(default_factory=list)
    cut_points: int = 0
    lacking: dict[str, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.lacking = {n: {"placeholder": 0, "no line": 0} for n in self.names}

    def conversation(self, conv: str, dturns: list[tuple[Turn, int]]) -> None:
        plain = [t for t, _ in dturns]
        for k in range(1, len(plain) + 1):
            if plain[k - 1].role != "user":
                continue
            line = dturns[k - 1][1]
            if not plain[k - 1].text:
                self.report.problems.append(
                    Problem(str(self.dialogs), f"empty USER line in CONVERSATION:{conv}: no situation ends here", line)
                )
                continue
            self.cut_points += 1
            resp, where = self._answers(conv, dturns, k)
            if len(resp) < len(self.names):
                continue
            self.situations.append(
                Situation(
                    situation_id=f"{conv}-t{k}",
                    dialog_id=conv,
                    context=tuple(plain[:k]),
                    responses=resp,
                    source={
                        "format": "infact-txt",
                        "file": self.dialogs.name,
                        "line": line,
                        "block_line": self.dblocks[conv].line,
                        "conversation_id": conv,
                        "responses_from": where,
                    },
                    meta=cut_meta(plain, k),
                )
            )

    def _answers(self, conv: str, dturns: list[tuple[Turn, int]], k: int) -> tuple[dict[str, str], dict[str, str]]:
        """Every system's response to turn k and where it came from; counts what is lacking."""
        resp, where = {}, {}
        for name, spath in self.systems:
            got = self.responses[name].get(conv, {}).get(k)
            if got and got[0]:
                resp[name], where[name] = got[0], f"{Path(spath).name}:{got[1]}"
        if self.ground_truth and k < len(dturns):
            resp[self.ground_truth], where[self.ground_truth] = dturns[k][0].text, f"{self.dialogs.name}:{dturns[k][1]}"
        for n in self.names:
            if n not in resp:
                placeholder = n != self.ground_truth and self.responses[n].get(conv, {}).get(k) is not None
                self.lacking[n]["placeholder" if placeholder else "no line"] += 1
        return resp, where
