"""`[protocol]` in study.toml: rate every response, or compare them (pairwise, best–worst).

Defined here, beside the other sections' single definitions, and included in StudyConfig
as `protocol`; the README's settings reference is generated from these fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from infact.text.catalogue import N_, _, number

PAIRWISE_KINDS = ("pairwise", "pairwise_dialog")  # both store their votes in pairwise.csv


def vote_table(kind: str) -> str | None:
    """The export table a protocol's votes go to: `pairwise`, `best_worst`, or None for ratings."""
    return "pairwise" if kind in PAIRWISE_KINDS else "best_worst" if kind == "best_worst" else None


class ProtocolConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["rating", "pairwise", "pairwise_dialog", "best_worst", "conversation"] = Field(
        default="rating",
        description="How responses are judged: `rating` (each response on the scale, INFACT's protocol), "
        "`pairwise` (two systems' responses side by side: which is more …?), `pairwise_dialog` (ACUTE-style: two "
        "systems' whole conversations side by side; `study.situations` are then dialogs files from "
        "`import conversations`) or "
        "`best_worst` (pick the best and the worst of `set_size` responses) or `conversation` (one system's whole "
        "conversation, each system turn and then the dialog rated on the `[[aspects]]`; `study.situations` are "
        "conversations files, one per system). See docs/ranking.md and docs/protocols.md.",
    )
    pairs: Literal["balanced", "adaptive"] = Field(
        default="balanced",
        description="Pairwise: which systems are compared. `balanced`: every pair equally often, spread "
        "over situations; `adaptive`: once every pair has a few votes, the pairs where the ranking is least certain.",
    )
    question: str = Field(
        default=N_("Which response is more {criterion}?"),
        min_length=1,
        description="Pairwise and best–worst question per "
        "criterion (Markdown); `{criterion}` is replaced by the criterion's id. Each comparison protocol has its own "
        "default wording (infact/study/protocol_config.py).",
    )
    allow_tie: bool = Field(default=True, description="Pairwise: offer an 'about the same' answer.")
    tie_label: str = Field(default=N_("About the same"), min_length=1, description="Label of the tie answer.")
    allow_both_bad: bool = Field(
        default=False,
        description="Pairwise: offer a fourth answer, 'both bad' (stored as winner `both_bad`, kept apart from a tie; "
        "counted as a tie in the ranking fit, as LMArena does, and reported per system as a both-bad rate). See "
        "docs/ranking.md.",
    )
    both_bad_label: str = Field(default=N_("Both are bad"), min_length=1, description="Label of the 'both bad' answer.")
    justification: Literal["off", "optional", "required"] = Field(
        default="off", description="Pairwise: ask for a short justification of the choice (stored and exported)."
    )
    justification_min_chars: int = Field(
        default=15, ge=1, le=2000, description="Shortest justification accepted when it is required."
    )
    set_size: int | None = Field(
        default=None,
        ge=3,
        description="Best–worst: responses shown per situation (3 or more; "
        "default every system). Systems are drawn so each is shown about equally often.",
    )
    attention_text: str = Field(
        default=N_("I am reading this carefully: please choose THIS response as the better (or best) one."),
        min_length=1,
        description="Pairwise and best–worst attention check: the instructed response that replaces one system's "
        "response; choosing it (as the better, or the best) passes the check. By default it names the protocol's "
        "noun and every criterion asked on the page (infact/study/protocol_config.py).",
    )
    onboarding: str | None = Field(
        default=None,
        description="Pairwise: a JSON Lines file in the study folder of gold "
        "pairs (context, a, b, answer A|B; for `pairwise_dialog` a and b are whole conversations) "
        "answered after consent, as ACUTE-Eval's onboarding; participants below "
        "`onboarding_threshold` are screened out.",
    )
    onboarding_threshold: float = Field(
        default=0.75,
        gt=0,
        le=1,
        description="Share of gold pairs a participant must answer correctly to continue (ACUTE-Eval uses 0.75).",
    )
    gold: str | None = Field(
        default=None,
        description="Conversation protocol: a JSON Lines file in the study folder "
        "of gold conversations with their expected answers (docs/protocols.md); one is mixed in "
        "at a random position, unmarked, and answers off by more than an aspect's `tolerance` "
        "count as a failed attention check.",
    )
    comment: Literal["off", "optional"] = Field(
        default="off",
        description="Conversation protocol: offer an optional comment box after the dialogue-level aspects.",
    )
    confidence: float = Field(
        default=0.95,
        gt=0.5,
        lt=1,
        description="Confidence of the dashboard's ranking intervals and of its 'settled': the order is called "
        "settled when every two neighbours are separated by anytime-valid intervals, which may be watched after "
        "every vote (docs/ranking.md, 'Watching a study').",
    )

    def question_for(self, criterion: str) -> str:
        return self.question.replace("{criterion}", criterion)


# The one irregular name: the protocol "rating" is drawn by the step kind "situation" (one step per rated situation)
# and fills the table "ratings". Every other protocol is drawn by the step kind of its own name.
PROTOCOLS = ("rating", "pairwise", "pairwise_dialog", "best_worst", "conversation")
RATING_KIND = "situation"


def step_kind(name: str) -> str:
    """The step kind that draws protocol `name` (the name itself for any other step kind): rating → situation."""
    return RATING_KIND if name == "rating" else name


def protocol_of(kind: str) -> str | None:
    """The protocol step kind `kind` draws (situation → rating), or None for a kind that is no protocol (consent…)."""
    if kind == RATING_KIND:
        return "rating"
    return kind if kind in PROTOCOLS and kind != "rating" else None


MIXABLE = ("rating", "pairwise", "best_worst")  # read the same situations files, so one study may hold several


class FlowConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: list[str] | None = Field(
        default=None,
        description="The order of step kinds for this study, as oTree's page sequence, e.g. "
        '`["consent", "demographics", "situation", "pairwise", "questionnaire", "done"]`; kinds left out are '
        "not shown. `consent` comes first and `done` last. Two protocol blocks (`situation` = rating, `pairwise`, "
        "`best_worst`) show the same situations twice, once per protocol, so one study compares protocols within "
        "participants; `[protocol]` sets the comparison block. Default: every kind in INFACT's order (consent → "
        "onboarding → situations → live → questionnaire → demographics → done).",
    )


def flow_problem(steps: list[str] | None, protocol_kind: str) -> str | None:
    """What is impossible about `[flow] steps` (a message starting with the key), or None."""
    if steps is None:
        return None
    dupes = sorted({s for s in steps if steps.count(s) > 1})
    if dupes:
        return f"flow.steps: each step kind comes once; repeated: {', '.join(dupes)}"
    if not steps or steps[0] != "consent":
        return 'flow.steps: "consent" must come first (nothing is stored before a participant consents)'
    if steps[-1] != "done":
        return 'flow.steps: "done" must come last (it shows the completion code)'
    blocks = [p for p in map(protocol_of, steps) if p is not None]
    if step_kind(protocol_kind) not in steps:
        return (
            f'flow.steps: [protocol] kind = "{protocol_kind}" is shown by the step kind '
            f'"{step_kind(protocol_kind)}", which the list lacks: add it, or change [protocol] kind'
        )
    if len(blocks) > 1 and not set(blocks) <= set(MIXABLE):
        return (
            f"flow.steps: {', '.join(map(step_kind, blocks))} cannot share a study: pairwise_dialog and "
            "conversation read other data files; only situation, pairwise and best_worst combine"
        )
    voting = [b for b in blocks if b != "rating"]
    if len({vote_table(b) for b in voting}) < len(voting):
        return "flow.steps: two blocks write the same table"
    return None


def blocks_of(steps: list[str] | None, protocol_kind: str) -> tuple[str, ...]:
    """The study's protocol blocks (protocol kinds) in the order they are shown."""
    if steps is None:
        return (protocol_kind,)
    return tuple(p for p in map(protocol_of, steps) if p is not None)


# ---------------------------------------------------------------- default texts per protocol
# Default participant texts that fit the study's protocol.
#
# The field defaults in config.py and protocol_config.py are worded for INFACT's rating protocol
# ("rate how meaningful each … response is", "the chatbot would be useful"). A comparison study
# that leaves a text out gets the wording of its own protocol here instead: a pairwise study
# compares responses of several chatbots, an ACUTE-style study whole conversations, a best–worst
# study picks the best and the worst. `fill_defaults` works on the raw study.toml tables before
# validation, so a text the researcher wrote is never replaced and the defaults are validated
# like any other value.

CAREFUL = ("careful", N_("I am answering carefully and select the last option here."), N_("Strongly agree"))

# (id, text, expected): the rating protocol's list in config.py, reworded for several chatbots.
QUESTIONNAIRES: dict[str, list[tuple[str, str, str | None]]] = {
    "pairwise": [
        ("natural", N_("The conversations felt natural."), None),
        ("realistic", N_("The conversations looked realistic."), None),
        ("human_like", N_("The conversations could have happened between two humans."), None),
        ("useful", N_("The better response was usually one that would help the user."), None),
        ("would_use", N_("I would use the best of these chatbots in the future."), None),
        CAREFUL,
    ],
    "pairwise_dialog": [
        ("natural", N_("The conversations felt natural."), None),
        ("realistic", N_("The conversations looked realistic."), None),
        ("human_like", N_("The conversations could have happened between two humans."), None),
        ("useful", N_("The better chatbot of each pair would be useful to someone looking for a movie."), None),
        ("would_use", N_("I would use the best of these chatbots in the future."), None),
        CAREFUL,
    ],
    "best_worst": [
        ("natural", N_("The conversations felt natural."), None),
        ("realistic", N_("The conversations looked realistic."), None),
        ("human_like", N_("The conversations could have happened between two humans."), None),
        ("useful", N_("The best response was usually one that would help the user."), None),
        ("would_use", N_("I would use the best of these chatbots in the future."), None),
        CAREFUL,
    ],
}

SITUATION_HELP = {
    "conversation": N_("Read the whole conversation, then answer about each chatbot message and the conversation."),
    "pairwise": N_("Read the conversation, then choose the better of the two next chatbot responses."),
    "pairwise_dialog": N_("Read both conversations, then choose the better chatbot for each question."),
    "best_worst": N_("Read the conversation, then pick the best and the worst of the next chatbot responses."),
}

QUESTION = {
    "pairwise": N_("Which response is more **{criterion}**?"),
    "pairwise_dialog": N_("Which chatbot is more **{criterion}**: the one in conversation A or in conversation B?"),
    "best_worst": N_("Which response is the most **{criterion}**, and which the least?"),
}

QUESTIONNAIRE_INTRO = {
    "pairwise": N_("Almost done! Please tell us what you thought of the chatbots' responses overall."),
    "pairwise_dialog": N_("Almost done! Please tell us what you thought of the chatbots overall."),
    "best_worst": N_("Almost done! Please tell us what you thought of the chatbots' responses overall."),
}


def attention_text(kind: str, criteria: list[str], translate=str, count=str) -> str:
    """The instructed response: which answer to give, to which question(s) of the page. In English (the default
    stored in the config) unless `translate` (catalogue._) and `count` (catalogue.number) are given."""
    if len(criteria) <= 1:
        return translate(ATTENTION[kind])
    quoted = [f'"{c}"' for c in criteria]
    names = translate(AND).format(names=", ".join(quoted[:-1]), last=quoted[-1])
    return translate(ATTENTION_EACH[kind]).format(n=count(len(criteria)), names=names)


def shown_attention_text(cfg) -> str:
    """The attention check's instructed response as the participant reads it: the protocol's own sentence from the
    catalogue in the study's language (criteria named, the count localised); the researcher's own as written."""
    proto, ids = cfg.protocol, [c.id for c in cfg.criteria]
    if proto.kind in ATTENTION and proto.attention_text == attention_text(proto.kind, ids):
        return attention_text(proto.kind, ids, _, number)
    return _(proto.attention_text)


ATTENTION = {
    "pairwise": N_("I am reading this carefully: please choose THIS response as the better one."),
    "pairwise_dialog": N_("I am reading this carefully: please choose THIS conversation as the better one."),
    "best_worst": N_(
        "I am reading this carefully: please choose THIS response as the best one. Any pick for the worst one is fine."
    ),
}
# A page of several criteria: the check names each question (`names`: the criteria ids quoted, joined by AND).
ATTENTION_EACH = {
    "pairwise": N_(
        "I am reading this carefully: for each of the {n} questions on this page ({names}), please choose THIS "
        "response as the better one."
    ),
    "pairwise_dialog": N_(
        "I am reading this carefully: for each of the {n} questions on this page ({names}), please choose THIS "
        "conversation as the better one."
    ),
    "best_worst": N_(
        "I am reading this carefully: for each of the {n} questions on this page ({names}), please choose THIS "
        "response as the best one. Any pick for the worst one is fine."
    ),
}
AND = N_("{names} and {last}")


def fill_defaults(data: Any) -> Any:
    """study.toml's tables with the protocol's own texts wherever the researcher gave none."""
    if not isinstance(data, dict):
        return data
    protocol = data.get("protocol")
    kind = protocol.get("kind", "rating") if isinstance(protocol, dict) else getattr(protocol, "kind", "rating")
    data = _own_instructions(data, kind)
    if kind == "conversation" and isinstance(data.get("texts"), dict) and "situation_help" not in data["texts"]:
        data["texts"] = {**data["texts"], "situation_help": SITUATION_HELP["conversation"]}
    if kind not in QUESTIONNAIRES or not isinstance(protocol, dict):
        return data  # rating (the field defaults' own protocol), or an already built section
    data = {**data, "protocol": dict(protocol)}
    protocol = data["protocol"]
    raw_criteria = data.get("criteria")
    criteria = (
        [c.get("id") for c in raw_criteria if isinstance(c, dict)] if isinstance(raw_criteria, list) else ["meaningful"]
    )
    protocol.setdefault("question", QUESTION[kind])
    protocol.setdefault("attention_text", attention_text(kind, [str(c) for c in criteria if c]))
    texts = data.get("texts")
    if isinstance(texts, dict):
        data["texts"] = texts = dict(texts)
        texts.setdefault("situation_help", SITUATION_HELP[kind])
        texts.setdefault("questionnaire_intro", QUESTIONNAIRE_INTRO[kind])
    questionnaire = data.get("questionnaire", {})
    if isinstance(questionnaire, dict) and "items" not in questionnaire:
        data["questionnaire"] = {
            **questionnaire,
            "items": [{"id": i, "text": t, **({"expected": e} if e else {})} for i, t, e in QUESTIONNAIRES[kind]],
        }
    return data


# ---------------------------------------------------------------- texts per block of a [flow] study
# The participant texts of each protocol block of a `[flow]` study (rating, then pairwise, …).
#
# A study with one protocol has one set of texts: `[texts] instructions` and `situation_help`.
# A study that mixes blocks (`[flow] steps = [..., "situation", "pairwise", ...]`) gives a
# different task in each, so each block gets its own instructions and short help, from
# `[texts.blocks.<protocol kind>]` (`rating`, `pairwise`, `best_worst`) or the kind's default,
# and each block after the first opens with a short screen saying that the task changes
# (`intro`, with the block's instructions). The first block keeps `[texts] instructions` (the
# consent page shows them); `[texts] situation_help` belongs to `[protocol] kind`'s block.
RATING_HELP = N_("Read the dialog, then rate how meaningful each possible next chatbot response is.")

INSTRUCTIONS = {
    "rating": N_(
        "For each possible next chatbot response, choose how **meaningful** it is as the next turn of the "
        "conversation: does it make sense there and fit what the user said?"
    ),
    "pairwise": N_(
        "You see the same kind of conversation, now with **two** possible next chatbot responses side by "
        "side. Choose the one that fits the conversation better. Choose *About the same* only if you really cannot "
        "decide."
    ),
    "best_worst": N_(
        "You see several possible next chatbot responses at a time. Pick the **best** and the **worst** "
        "of them for the conversation."
    ),
}
INTRO = {
    "rating": N_("The task changes: from now on you **rate** each chatbot response on its own."),
    "pairwise": N_("The task changes: from now on you **compare two** chatbot responses and choose the better one."),
    "best_worst": N_("The task changes: from now on you pick the **best** and the **worst** of several responses."),
}


# `[texts] instructions` left out: the study's own protocol's wording (a study of one protocol; a [flow] study's
# later blocks take INSTRUCTIONS above, worded as a change of task). A live-chats-only study (no situations) gets
# LIVE_INSTRUCTIONS.
OWN_INSTRUCTIONS = {
    "rating": "**How it works.** Each page shows a conversation between a **user** and a **chatbot**, up to a "
    "message of the user. Below it are several possible next chatbot responses, in random order. Rate **each** "
    "response on the scale: how **meaningful** is it as the chatbot's next message? A meaningful response fits "
    "the conversation and what the user just said.\n\nIn one conversation a response tells you which answer to "
    "give: please follow it.",
    "pairwise": "**How it works.** Each page shows a conversation between a **user** and a **chatbot**, up to a "
    "message of the user. Below it are **two** possible next chatbot responses, **A** and **B**. Choose the one "
    "that fits the conversation better; choose *About the same* only if you really cannot decide.\n\nIn one "
    "conversation a response tells you which answer to choose: please follow it.",
    "best_worst": "**How it works.** Each page shows a conversation between a **user** and a **chatbot**, up to "
    "a message of the user. Below it are several possible next chatbot responses. Pick the **best** and the "
    "**worst** of them for the conversation.\n\nIn one conversation a response tells you which to pick: please "
    "follow it.",
    "pairwise_dialog": "**How it works.** Each page shows two whole conversations, **A** and **B**, between a "
    "user and two different chatbots. Read both, then choose for each question the chatbot that did better; "
    "choose *About the same* only if you really cannot decide.",
    "conversation": "**How it works.** Each page shows one whole conversation between a user and a chatbot. "
    "Answer the questions about **each chatbot message**, then about the **conversation as a whole**.",
}
LIVE_INSTRUCTIONS = (
    "**How it works.** You chat with chatbots, one after the other. Tell each what you are looking for and "
    "answer a few questions about it after the chat; at the end, say which one helped you better."
)


def _own_instructions(data: dict, kind: str) -> dict:
    """`texts.instructions` from the protocol when the researcher wrote none."""
    texts = data.get("texts")
    if not isinstance(texts, dict) or texts.get("instructions") is not None:
        return data
    study = data.get("study") if isinstance(data.get("study"), dict) else {}
    live_only = study.get("situations_per_participant") == 0 and isinstance(data.get("live"), dict)
    text = LIVE_INSTRUCTIONS if live_only else OWN_INSTRUCTIONS.get(kind, OWN_INSTRUCTIONS["rating"])
    return {**data, "texts": {**texts, "instructions": text}}


class BlockTexts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    instructions: str | None = Field(
        default=None, description="This block's instructions (Markdown); default: the protocol's own."
    )
    situation_help: str | None = Field(
        default=None, description="Short reminder above each of this block's pages (plain text)."
    )
    intro: str | None = Field(
        default=None, description="The short screen when this block starts after another one (Markdown)."
    )


@dataclass(frozen=True)
class ForBlock:
    instructions: str
    situation_help: str
    intro: str | None  # None: no task-change screen (the first block, or a study of one block)
    number: int  # 1-based
    count: int


def block_texts(cfg, kind: str) -> ForBlock:
    """The texts of the block of protocol `kind` ("rating", "pairwise", …) in study config `cfg`."""
    blocks = cfg.blocks
    texts = cfg.texts
    if len(blocks) < 2 or kind not in blocks:
        return ForBlock(texts.instructions, texts.situation_help, None, 1, 1)
    own = texts.blocks.get(kind) or BlockTexts()
    number = blocks.index(kind) + 1
    default_help = texts.situation_help if kind == cfg.protocol.kind else SITUATION_HELP.get(kind, RATING_HELP)
    return ForBlock(
        instructions=own.instructions or (texts.instructions if number == 1 else INSTRUCTIONS.get(kind, "")),
        situation_help=own.situation_help or default_help,
        intro=None if number == 1 else (own.intro or INTRO.get(kind, N_("The task changes from here on."))),
        number=number,
        count=len(blocks),
    )
