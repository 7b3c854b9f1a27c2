"""Which participant texts of a study come from the message catalogue and which are the study's own.

A participant text left at its default (a button's neighbour: the consent box's label, the scale labels,
the questionnaire, the demographics, a comparison protocol's question …) is a catalogue string: it is
shown in `[study] language`. A text the study writes replaces it and is shown as written, in whatever
language it was written. `overrides` lists those replacements by setting, so `infact validate` can say
them (a German study that rewrote its scale labels in English would otherwise show English labels).
"""

from __future__ import annotations

from collections.abc import Iterator

from infact.text.catalogue import LANGUAGES, PSEUDO, template_ids

# The texts every study writes itself (no catalogue default): always shown as written.
OWN = ("texts.welcome", "texts.instructions", "texts.terms", "texts.privacy")


def participant_texts(cfg) -> Iterator[tuple[str, str]]:
    """(setting, text) of every participant text of study config `cfg` that has a catalogue default."""
    texts = cfg.texts
    for name in (
        "consent",
        "situation_help",
        "questionnaire_intro",
        "demographics_intro",
        "completion",
        "screened_out",
        "withdrawn",
    ):
        yield f"texts.{name}", getattr(texts, name)
    for i, label in enumerate(cfg.scale.labels):
        yield f"scale.labels[{i}]", label
    for crit in cfg.criteria:
        yield f"criteria.{crit.id}.question", crit.question
    if cfg.attention_check.enabled:
        yield "attention_check.text", cfg.attention_check.text
    q = cfg.questionnaire
    for i, label in enumerate(q.scale):
        yield f"questionnaire.scale[{i}]", label
    for item in q.items:
        yield f"questionnaire.items.{item.id}.text", item.text
    if q.comment.enabled:
        yield "questionnaire.comment.question", q.comment.question
    for item in cfg.demographics:
        yield f"demographics.{item.id}.text", item.text
        for i, option in enumerate(item.options):
            if any(c.isalpha() for c in option):  # "18-24" is the same in every language
                yield f"demographics.{item.id}.options[{i}]", option
    yield from _comparison_texts(cfg)


def _comparison_texts(cfg) -> Iterator[tuple[str, str]]:
    proto = cfg.protocol
    if proto.kind in ("pairwise", "pairwise_dialog", "best_worst"):
        yield "protocol.question", proto.question
        yield "protocol.attention_text", proto.attention_text
        if proto.allow_tie:
            yield "protocol.tie_label", proto.tie_label
        if proto.allow_both_bad:
            yield "protocol.both_bad_label", proto.both_bad_label
    live = cfg.live
    if live.systems:
        yield "live.task", live.task
        if live.turn_rating:
            yield "live.turn_rating", live.turn_rating
        for i, label in enumerate(live.rubric_scale):
            yield f"live.rubric_scale[{i}]", label
        for item in live.rubric:
            yield f"live.rubric.{item.id}.question", item.question


def overrides(cfg) -> list[str]:
    """Settings whose text replaces a catalogue string (shown as written, not in the study's language)."""
    ids = template_ids()
    return [where for where, text in participant_texts(cfg) if text not in ids]


def language_note(cfg) -> str:
    """What `infact validate` says about the study's language and the catalogue strings it replaces."""
    language = cfg.study.language
    name = "pseudo-locale (tests)" if language == PSEUDO else LANGUAGES.get(language, language)
    own = overrides(cfg)
    head = f"language {language} ({name}): buttons, messages and default texts from its catalogue; "
    head += f"shown as written: {', '.join(OWN)}"
    if not own:
        return head + "; no catalogue string replaced"
    return head + f"; {len(own)} catalogue string(s) replaced by the study's own text: {', '.join(own)}"
