"""`StudyDraft`: what a new study is before it is written (protocol, id, title, systems, data files, settings).

`draft_study(protocol, …)` makes one: with no situations of its own, on the bundled demo of its protocol's
sample data (data/demo*/); with situations (e.g. from `importers.table.read_table`), on those, with the
situations per participant and the attention check they allow.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from infact.errors import ConfigError, Problem
from infact.study.situations import Situation, dumps_situations

DATA = Path(__file__).resolve().parents[3] / "data"
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
FROM_TABLE = ("ratings", "pairwise", "best-worst")  # the protocols whose data is situations from a table
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
    if protocol == "live":
        raise ConfigError(
            Problem(
                "--from",
                "a live study chats with running systems, which a table cannot give: start with `infact new DIR "
                "--protocol live` (the built-in demo chatbots) and give each of your systems a `url`, `callable` or "
                "`endpoint` under [live.systems] (docs/live.md); to rate your table's responses, make a ratings or "
                "pairwise study with --from",
            )
        )
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


TITLES = {
    "ratings": "How meaningful are these chatbot responses?",
    "pairwise": "Which chatbot response is better?",
    "best-worst": "Which chatbot response is best, and which worst?",
    "acute": "Which chatbot is the better conversation partner?",
    "live": "Chat with movie chatbots",
    "conversations": "How good is this chatbot's conversation?",
}
