"""A draft's study.toml: every setting a researcher edits first, each with a comment; the texts they must
write (welcome, terms, privacy) as a start, the others left to the protocol's own wording."""

from __future__ import annotations

import json

from infact.study.starter.draft import StudyDraft

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
