"""A new study folder from nothing: `infact new DIR [--protocol …] [--from FILE]`, as a library.

`draft_study(protocol, …)` returns a `StudyDraft` (what the study is: protocol, id, title, systems, its data
files, the per-protocol settings), `render_toml(draft)` its commented study.toml, `study_files(draft)` every
file as bytes, and `write_study_folder(folder, files, force=…)` writes them as one set. The in-app builder
and the CLI call the same functions; nothing here prints or parses arguments.

With no situations of its own, a draft takes the bundled demo of its protocol's sample data (data/demo*/);
with situations (e.g. from `importers.table.read_table`), it uses them. The written study.toml validates as
it is and the app runs it at once; texts left out take the protocol's own wording (protocol_config).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from infact.errors import ConfigError, Problem
from infact.fileio import swap_in
from infact.study.situations import Situation, dumps_situations

DATA = Path(__file__).resolve().parents[2] / "data"
SITUATIONS_FILE = "situations.jsonl"

# The protocol names of `infact new --protocol` (docs/protocols.md's), each with its [protocol] kind.
PROTOCOLS = {
    "ratings": "rating",
    "pairwise": "pairwise",
    "best-worst": "best_worst",
    "acute": "pairwise_dialog",
    "live": "rating",  # live chats, after any situations rated the ratings way
    "conversations": "conversation",
}
ALIASES = {"rating": "ratings", "best_worst": "best-worst", "pairwise_dialog": "acute", "conversation": "conversations"}
SAMPLE = {  # protocol -> the bundled demo whose data files are the sample
    "ratings": "demo",
    "pairwise": "demo-pairwise",
    "best-worst": "demo-best-worst",
    "acute": "demo-acute",
    "live": "demo-live",
    "conversations": "demo-conversations",
}
FROM_TABLE = ("ratings", "pairwise", "best-worst", "live")  # the protocols whose data is situations
MIN_SYSTEMS = {"pairwise": 2, "best-worst": 3}


def protocol_name(name: str) -> str:
    """`ratings`, `pairwise`, … from a protocol name or a [protocol] kind; a clear error otherwise."""
    name = ALIASES.get(name, name)
    if name not in PROTOCOLS:
        raise ConfigError(Problem("--protocol", f"unknown protocol {name!r}: choose one of {', '.join(PROTOCOLS)}"))
    return name


@dataclass
class StudyDraft:
    """A study before it is written: what `render_toml` and `study_files` turn into files."""

    protocol: str  # a key of PROTOCOLS
    study_id: str
    title: str
    systems: list[str]
    situation_files: list[str]
    situations_per_participant: int
    attention: dict | None  # the [attention_check] table, or None: off
    data: dict[str, bytes] = field(default_factory=dict)  # data files (relative path -> content)
    extra: dict = field(default_factory=dict)  # tables of the sample's study.toml: protocol, criteria, aspects
    source: str = ""  # where the situations came from, for the header comment
    notes: list[str] = field(default_factory=list)  # what the researcher should know (printed by the CLI)

    @property
    def kind(self) -> str:
        return PROTOCOLS[self.protocol]


def draft_study(
    protocol: str = "ratings",
    *,
    study_id: str = "my-study",
    title: str | None = None,
    situations: list[Situation] | None = None,
    source: str = "",
) -> StudyDraft:
    """The draft of a new study of `protocol`: with `situations` (imported) or the protocol's sample data."""
    protocol = protocol_name(protocol)
    if situations is None:
        return _sample_draft(protocol, study_id, title)
    if protocol not in FROM_TABLE:
        raise ConfigError(
            Problem(
                "--from",
                f"a {protocol} study reads whole conversations per system, not situations from a table: start with "
                f"`infact new DIR --protocol {protocol}` (sample conversations) and import yours with "
                "`infact import conversations` (docs/importing.md)",
            )
        )
    systems = _systems(situations)
    need = MIN_SYSTEMS.get(protocol, 1)
    if len(systems) < need:
        raise ConfigError(
            Problem(
                source or "--from",
                f"a {protocol} study compares at least {need} systems; the table has {len(systems)} "
                f"({', '.join(systems) or 'none'}): add a column per system or choose --protocol ratings",
            )
        )
    draft = StudyDraft(
        protocol, study_id, title or TITLES[protocol], systems, [SITUATIONS_FILE], 0, None, source=source
    )
    draft.data = {SITUATIONS_FILE: dumps_situations(situations).encode("utf-8")}
    _plan_situations(draft, situations)
    if protocol == "live":
        draft.extra = {"live": _sample_config("live")["live"]}
    return draft


def _systems(situations: list[Situation]) -> list[str]:
    seen: dict[str, None] = {}
    for s in situations:
        for name in s.responses:
            seen.setdefault(name, None)
    return list(seen)


def _plan_situations(draft: StudyDraft, situations: list[Situation]) -> None:
    """Situations per participant and the attention check that the imported situations allow."""
    systems = draft.systems
    complete = [s for s in situations if all(s.responses.get(n, "").strip() for n in systems)]
    if len(complete) < 3:  # the check's dialog is never rated: with so few situations, no check
        draft.situations_per_participant = len(complete)
        draft.notes.append(
            f"{len(complete)} situation(s) have a response from every system: too few for an attention check "
            "(its dialog is never rated), so it is off; add situations and set [attention_check] enabled = true"
        )
        return
    check = complete[0]
    pool = [s for s in complete if s.dialog_id != check.dialog_id]
    per = min(10, len(pool) + 1)
    first = min(3, per)
    draft.situations_per_participant = per
    draft.attention = {"enabled": True, "situation": check.situation_id, "positions": [first, max(first, per - 1)]}
    draft.notes.append(
        f"situation {check.situation_id} is the attention check (its dialog is never rated): each participant "
        f"sees {per} situations, {len(pool)} different ones are rated"
    )
    if len(complete) < len(situations):
        draft.notes.append(f"{len(situations) - len(complete)} situation(s) lack a system's response and are left out")


def _sample_config(protocol: str) -> dict:
    with open(DATA / SAMPLE[protocol] / "study.toml", "rb") as fh:
        return tomllib.load(fh)


def _sample_draft(protocol: str, study_id: str, title: str | None) -> StudyDraft:
    """A draft on the bundled demo's data files: its systems, situations and protocol settings."""
    demo = DATA / SAMPLE[protocol]
    cfg = _sample_config(protocol)
    study = cfg["study"]
    files = list(study["situations"])
    extra = {k: cfg[k] for k in ("criteria", "aspects", "live") if k in cfg}
    extra["protocol"] = {k: v for k, v in cfg.get("protocol", {}).items() if k not in ("question", "attention_text")}
    for key in ("onboarding", "gold"):
        if extra["protocol"].get(key):
            files.append(extra["protocol"][key])
    attention = cfg.get("attention_check", {})
    draft = StudyDraft(
        protocol,
        study_id,
        title or TITLES[protocol],
        list(study["systems"]),
        list(study["situations"]),
        study.get("situations_per_participant", 10),
        {k: attention[k] for k in ("enabled", "situation", "positions") if k in attention}
        if attention.get("enabled", True)
        else None,
        data={name: (demo / name).read_bytes() for name in files},
        extra=extra,
        source=f"the sample data of {demo.relative_to(DATA.parent)}",
    )
    if protocol == "live":  # the sample live study is chats only: no situations to rate first
        draft.situation_files, draft.situations_per_participant, draft.attention, draft.data = [], 0, None, {}
        draft.extra.pop("criteria", None)
    return draft


# ---------------------------------------------------------------- rendering study.toml

TITLES = {
    "ratings": "How meaningful are these chatbot responses?",
    "pairwise": "Which chatbot response is better?",
    "best-worst": "Which chatbot response is best, and which worst?",
    "acute": "Which chatbot is the better conversation partner?",
    "live": "Chat with movie chatbots",
    "conversations": "How good is this chatbot's conversation?",
}
TASK = {  # the welcome page's line on what participants do, in the protocol's own words
    "ratings": "read short conversations between a **user** and a **chatbot** and judge how meaningful several "
    "possible next chatbot responses are",
    "pairwise": "read short conversations between a **user** and a **chatbot** and each time decide which of "
    "**two** possible next chatbot responses is better",
    "best-worst": "read short conversations between a **user** and a **chatbot** and each time pick the **best** "
    "and the **worst** of several possible next chatbot responses",
    "acute": "read pairs of whole conversations between a user and two different **chatbots** and each time "
    "decide which chatbot did better",
    "live": "**chat with chatbots** yourself, one after the other, and say which one helped you better",
    "conversations": "read whole conversations between a user and a **chatbot** and judge each chatbot message "
    "and the conversation as a whole",
}
PROTOCOL_COMMENT = {
    "ratings": "each response rated on the scale (the default protocol)",
    "pairwise": 'two responses side by side: "Which response is more …?"',
    "best-worst": "the best and the worst of a set of responses",
    "acute": "two whole conversations side by side (ACUTE-Eval)",
    "live": "situations rated (if any), then live chats with the systems ([live])",
    "conversations": "one system's whole conversation, rated turn by turn and as a whole",
}


def _value(v) -> str:
    """A TOML value (strings, numbers, booleans, lists of them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if "\n" in v:
            return '"""\n' + v.strip("\n").replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\n"""'
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _table(name: str, values: dict, *, array: bool = False) -> list[str]:
    """`[name]` (or `[[name]]`) and its plain keys; nested tables as `[name.key]` after them."""
    lines = [f"[[{name}]]" if array else f"[{name}]"]
    nested = []
    for key, v in values.items():
        if isinstance(v, dict):
            nested.append((key, v))
        else:
            lines.append(f"{key} = {_value(v)}")
    for key, v in nested:
        lines += ["", *_table(f"{name}.{key}", v)]
    return lines


def render_toml(draft: StudyDraft) -> str:
    """The draft's study.toml: every setting a researcher edits first, each with a comment."""
    lines = _header(draft) + _study_table(draft) + _protocol_tables(draft)
    lines += ["", "[assignment]", "ratings_per_situation = 5        # answers wanted per situation (or conversation)"]
    lines += ["", *_attention_lines(draft)]
    lines += [
        "",
        "[platform]",
        'kind = "none"                    # "prolific" (with completion_code) or "mturk": docs/quality.md',
    ]
    return "\n".join(lines + ["", *_texts_lines(draft)]) + "\n"


def _header(draft: StudyDraft) -> list[str]:
    return [
        f"# {draft.title} — a {draft.protocol} study written by `infact new`"
        + (f" from {draft.source}." if draft.source else "."),
        "# It validates and runs as it is: edit the texts below, then check it with `infact validate <this folder>`",
        "# and run it with `INFACT_STUDY=<this folder> streamlit run streamlit_app.py`.",
        "# Every setting, its default and meaning: docs/settings.md; the protocols: docs/protocols.md.",
        "",
    ]


def _study_table(draft: StudyDraft) -> list[str]:
    per = draft.situations_per_participant
    what = "conversations" if draft.protocol in ("acute", "conversations") else "situations"
    return [
        "[study]",
        f"id = {_value(draft.study_id)}             # stored with every answer: change it before real participants",
        f"title = {_value(draft.title)}",
        f"situations = {_value(draft.situation_files)}",
        f"systems = {_value(draft.systems)}   # participants never see these names",
        f"situations_per_participant = {per}   # {what} per participant"
        + (", the attention check included" if draft.attention else ""),
        "expected_minutes = 10           # shown on the welcome page",
    ]


def _protocol_tables(draft: StudyDraft) -> list[str]:
    protocol = dict(draft.extra.get("protocol", {}))
    protocol["kind"] = draft.kind
    protocol = {"kind": protocol.pop("kind"), **protocol}
    lines = ["", *_table("protocol", protocol)]
    lines[2] += f"   # {PROTOCOL_COMMENT[draft.protocol]}"
    if draft.protocol == "pairwise" and "justification" not in protocol:
        lines.append('justification = "optional"       # "off", "optional" or "required": a short reason per choice')
    for item in draft.extra.get("criteria", []):
        lines += ["", *_table("criteria", item, array=True)]
    for item in draft.extra.get("aspects", []):
        lines += ["", *_table("aspects", item, array=True)]
    if "live" in draft.extra:
        lines += ["", '# The built-in demo chatbots (no network); an HTTP system is `url = "http://…"`: docs/live.md']
        lines += _table("live", draft.extra["live"])
    return lines


def _attention_lines(draft: StudyDraft) -> list[str]:
    if draft.attention is None:
        return ["[attention_check]", "enabled = false"]
    a = draft.attention
    return [
        "[attention_check]",
        "enabled = true",
        f"situation = {_value(a['situation'])}   # its dialog is used only for the check",
        f"positions = {_value(a['positions'])}   # shown at a random position between these (1-based)",
    ]


WELCOME = """Welcome, and thank you for your interest in this study!

We are researchers developing **chatbots**. In this study you will {task}.

* It takes about **10 minutes**.
* At the end there are a few short questions about your impression and about yourself."""
TERMS = """**Participation is voluntary.** You may stop at any time without giving a reason by using the
**Withdraw from the study** button at the bottom of every page. If you withdraw, your answers are
marked as withdrawn and are not used in the analysis.

You must be 18 or older and read English fluently. There are no known risks beyond those of
everyday computer use."""
PRIVACY = """We store your answers, what you were shown, in which order, and the time you spent on each page.
We do not store your name, e-mail or IP address. The data are used for research only and published
only in anonymised, aggregated form. EDIT: who runs the study and how to contact them."""


def _texts_lines(draft: StudyDraft) -> list[str]:
    return [
        "# What participants read (Markdown). welcome, terms and privacy are yours to write; every text left out",
        "# (instructions, situation_help, questionnaire_intro, completion, …) takes this protocol's own wording,",
        "# so changing [protocol] kind changes them too. Write one here to replace it: docs/settings.md.",
        "[texts]",
        f"welcome = {_value(WELCOME.format(task=TASK[draft.protocol]))}",
        "",
        f"terms = {_value(TERMS)}",
        "",
        f"privacy = {_value(PRIVACY)}",
    ]


# ---------------------------------------------------------------- writing the folder


def study_files(draft: StudyDraft) -> dict[str, bytes]:
    """Every file of the draft's folder: study.toml and its data files."""
    return {"study.toml": render_toml(draft).encode("utf-8"), **draft.data}


def existing(folder: str | Path, files: dict[str, bytes]) -> list[str]:
    """The names of `files` that `folder` already holds."""
    folder = Path(folder)
    return [name for name in files if (folder / name).exists() or (folder / name).is_symlink()]


def write_study_folder(folder: str | Path, files: dict[str, bytes], *, force: bool = False) -> list[Path]:
    """Write `files` into `folder` as one set; nothing else of the folder is touched.

    A file already there is replaced only with `force`, and then kept beside it as `NAME.bak-<time>`: nothing
    the researcher had is lost. Returns the paths written (the backups included)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(Problem(str(folder), "exists and is not a folder: choose another folder for the study"))
    clash = existing(folder, files)
    if clash and not force:
        raise ConfigError(
            Problem(
                str(folder),
                f"already holds {', '.join(clash)}: choose a new folder, or pass --force to replace "
                "them (each is kept as NAME.bak-<time>; other files are left alone)",
            )
        )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    backups = {f"{name}.bak-{stamp}": (folder / name).read_bytes() for name in clash if (folder / name).is_file()}
    return swap_in(folder, {**backups, **files})
