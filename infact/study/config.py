"""`study.toml`: one definition per setting (name, default, help), checked once at load.

Each setting is a pydantic field with a description; the same definitions drive
validation, defaults and the settings reference in the README (tests check that
every setting is documented). Errors name the file, the line, the key and the fix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from infact.study.annotation.aspects import Aspect
from infact.study.conditions.overlay import Condition
from infact.study.endpoints import Endpoint, JudgeSettings
from infact.study.live_config import LiveConfig, RubricItem
from infact.study.platform_config import ComprehensionConfig, PlatformConfig, ProlificConfig
from infact.study.protocol_config import (
    OWN_INSTRUCTIONS,
    RATING_HELP,
    BlockTexts,
    FlowConfig,
    ProtocolConfig,
    blocks_of,
    fill_defaults,
)
from infact.study.quality_config import MonitoringConfig, QualityConfig, study_checks
from infact.text.catalogue import N_
from infact.text.typed import NO_AI_TOOLS
from infact.values import identifier

DEFAULT_SCALE = [
    N_("Entirely meaningless"),
    N_("Meaningless"),
    N_("Between meaningless and meaningful"),
    N_("Somewhat meaningful"),
    N_("Perfectly meaningful"),
]
AGREE_SCALE = [
    N_("Strongly disagree"),
    N_("Disagree"),
    N_("Neither agree nor disagree"),
    N_("Agree"),
    N_("Strongly agree"),
]


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StudySection(Section):
    id: str = Field(description="Study identifier stored with every answer (letters, digits, '-', '_').")
    title: str = Field(description="Title shown to participants at the top of every page.")
    situations: list[str] = Field(
        default=["situations.jsonl"], description="Situations files (JSON Lines), relative to the study folder."
    )
    systems: list[str] = Field(
        min_length=1,
        description="Names of the compared systems, as they appear in the situations' `responses`. Participants never "
        "see these names.",
    )
    situations_per_participant: int = Field(
        default=10,
        ge=0,
        le=100,
        description="Situations each participant rates, including the attention check. 0 for a study of live chats "
        "only (`[live.systems]`, attention check off); its situations files are then not read.",
    )
    expected_minutes: float = Field(
        default=15,
        gt=0,
        description="Expected duration, shown on the welcome page and used for Prolific's rejection rules.",
    )
    language: Literal["en", "de", "es", "fr", "pt", "zh-Hans", "ar", "en-XA"] = Field(
        default="en",
        description="The participants' language: every button, message, progress line and default text comes from "
        "its catalogue (infact/text/locales/), numbers and plurals as the language writes them; `ar` mirrors the "
        "page right to left. Bundled: en, de, es, fr, pt, zh-Hans, ar (`en-XA`: a test pseudo-locale). Texts the "
        "study writes itself stay as written (docs/languages.md).",
    )
    delete_on_withdraw: bool = Field(
        default=False,
        description="If true, a participant who withdraws has every answer deleted from the store (only a tombstone "
        "remains so the same platform ID is not admitted twice); otherwise the answers are kept, marked withdrawn, and "
        "left out of coverage, analysis and exports unless requested.",
    )

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return identifier(
            v, "use 1-64 letters, digits, '-' or '_', starting with a letter or digit, e.g. \"crs-eval-2026\""
        )

    @field_validator("systems")
    @classmethod
    def _unique_systems(cls, v: list[str]) -> list[str]:
        dupes = sorted({s for s in v if v.count(s) > 1})
        if dupes:
            raise ValueError(f"system names must be unique; repeated: {', '.join(dupes)}")
        return v


class SamplingSection(Section):
    mode: Literal["all", "sample"] = Field(
        default="all", description="`all` uses every situation in the files; `sample` draws a seeded sample of `size`."
    )
    size: int | None = Field(default=None, ge=1, description='Number of situations to sample (mode = "sample").')
    seed: int = Field(default=0, description="Seed of the sample: the same seed gives the same situations.")
    stratify: Literal["position", "item_mentioned"] | None = Field(
        default=None,
        description="Stratify the sample by turn position in the dialog (early/middle/late) or by whether an item was "
        "already mentioned.",
    )

    @model_validator(mode="after")
    def _size(self):
        if self.mode == "sample" and self.size is None:
            raise ValueError('mode = "sample" needs `size`, the number of situations to draw')
        return self


class AssignmentSection(Section):
    ratings_per_situation: int = Field(
        default=5,
        ge=1,
        description="Target number of ratings per situation. Participants get the least-rated situations first.",
    )
    lease_minutes: float = Field(
        default=60,
        gt=0,
        description="An unfinished participant's situations are released for others after this many minutes.",
    )


class ScaleSection(Section):
    labels: list[str] = Field(
        default=DEFAULT_SCALE,
        min_length=2,
        max_length=11,
        description="Labels of the rating scale, lowest first; their number is the number of points.",
    )


class Criterion(RubricItem):  # the same id rules as the live chat's rubric items
    id: str = Field(description="Criterion identifier used in exports (e.g. `meaningful`).")
    question: str = Field(description="Question shown above each response's scale (Markdown).")


class AttentionCheckSection(Section):
    enabled: bool = Field(
        default=True, description="Include one instructed-response attention check among the situations."
    )
    situation: str | None = Field(
        default=None,
        description="situation_id whose dialog is used for the check; it is then never rated as a regular situation.",
    )
    positions: tuple[int, int] = Field(
        default=(3, 8), description="The check appears at a random position between these two (1-based, inclusive)."
    )
    text: str = Field(
        default=N_('I am reading this carefully, and I give a rating of "Meaningless" to this response.'),
        description="The instructed response that replaces one system's response; it must say explicitly what to "
        "select.",
    )
    expected: list[str] = Field(
        default=[N_("Meaningless")], min_length=1, description="Scale labels that pass the check."
    )


class Texts(Section):
    welcome: str = Field(description="Welcome page: study overview (Markdown).")
    instructions: str = Field(
        default=OWN_INSTRUCTIONS["rating"],
        description="Instructions shown with the consent and above the first situation (Markdown). Left out, the "
        "study's protocol's own wording is used (rating, pairwise, best–worst, ACUTE-style, conversation, or live "
        "chats only; infact/study/protocol_config.py), so changing `[protocol] kind` changes them too.",
    )
    terms: str = Field(description="Terms of participation, including how to withdraw (Markdown).")
    privacy: str = Field(description="Data-privacy statement (Markdown).")
    consent: str = Field(
        default=N_("I have read the information above and agree to take part in this study."),
        description="Label of the informed-consent checkbox.",
    )
    situation_help: str = Field(
        default=RATING_HELP,
        description="Short reminder shown above every situation (plain text, not Markdown). Comparison protocols get "
        "their own default (infact/study/protocol_config.py).",
    )
    questionnaire_intro: str = Field(
        default=N_("Almost done! Please tell us what you thought of the chatbot responses overall."),
        description="Text above the post-task questionnaire.",
    )
    demographics_intro: str = Field(
        default=N_("Finally, a few questions about you."), description="Text above the demographics questions."
    )
    completion: str = Field(
        default=N_("Thank you for taking part!"),
        description="Completion page text, shown with the completion code.",
    )
    screened_out: str = Field(
        default=N_("Thank you. Unfortunately you did not pass a check in this study, so it ends here."),
        description='Shown when a failed check ends the study early (quality.on_attention_fail = "screen_out").',
    )
    withdrawn: str = Field(
        default=N_("You have withdrawn from the study. Thank you for your time."),
        description="Shown after a participant withdraws.",
    )
    no_ai_tools: str = Field(
        default=NO_AI_TOOLS,
        description="Shown above every typed field (live chat messages, justifications, the arena vote's reason): "
        'the request not to use AI tools or paste text. `""` shows nothing.',
    )
    blocks: dict[str, BlockTexts] = Field(
        default_factory=dict,
        description="A `[flow]` study's texts per protocol block (`[texts.blocks.pairwise]` …): instructions, "
        "situation_help and the task-change screen's intro (infact/study/protocol_config.py).",
    )


class QuestionnaireItem(Section):
    id: str = Field(description="Item identifier used in exports.")
    text: str = Field(description="Statement shown to the participant.")
    expected: str | None = Field(
        default=None, description="For an instructed-response (attention) item: the only answer that passes."
    )


def _default_questionnaire() -> list[QuestionnaireItem]:
    return [
        QuestionnaireItem(id="natural", text=N_("The dialogs felt natural.")),
        QuestionnaireItem(id="realistic", text=N_("The dialogs looked realistic.")),
        QuestionnaireItem(id="human_like", text=N_("The dialogs could have happened between two humans.")),
        QuestionnaireItem(id="useful", text=N_("Considering the best responses, the chatbot would be useful.")),
        QuestionnaireItem(id="would_use", text=N_("I would use such a chatbot in the future.")),
        QuestionnaireItem(
            id="careful",
            text=N_("I am answering carefully and select the last option here."),
            expected=N_("Strongly agree"),
        ),
    ]


class QuestionnaireComment(Section):
    enabled: bool = Field(
        default=False,
        description="Ask for an optional free-text comment below the questionnaire statements; it is stored with the "
        "questionnaire answers and exported in questionnaire.csv as item `comment`.",
    )
    question: str = Field(
        default=N_(
            "Is there anything else you would like to tell us about the chatbot responses or this study? (optional)"
        ),
        min_length=1,
        description="Label of the comment box (Markdown).",
    )
    max_chars: int = Field(
        default=1000,
        ge=1,
        le=20000,
        description="Longest comment accepted, in characters (the box stops typing there; longer submissions are "
        "refused with a message).",
    )


class QuestionnaireSection(Section):
    scale: list[str] = Field(
        default=AGREE_SCALE, min_length=2, description="Answer options of every questionnaire item, lowest first."
    )
    items: list[QuestionnaireItem] = Field(
        default_factory=_default_questionnaire,
        description="Post-task statements (`[[questionnaire.items]]`: id, text, optional expected). Comparison "
        "protocols get their own default list, worded for several chatbots (infact/study/protocol_config.py).",
    )
    comment: QuestionnaireComment = Field(
        default_factory=QuestionnaireComment, description="Optional free-text comment at the end of the questionnaire."
    )

    @model_validator(mode="after")
    def _comment_id_free(self):
        if self.comment.enabled and any(i.id == "comment" for i in self.items):
            raise ValueError(
                'an item with id "comment" clashes with the free-text comment\'s item in questionnaire.csv: rename the '
                "item or disable [questionnaire.comment]"
            )
        return self


class DemographicItem(Section):
    id: str = Field(description="Item identifier used in exports.")
    text: str = Field(description="Question shown to the participant.")
    options: list[str] = Field(min_length=2, description="Answer options (one is chosen).")


def _default_demographics() -> list[DemographicItem]:
    no_say = N_("Prefer not to say")
    return [
        DemographicItem(
            id="gender", text=N_("Gender"), options=[N_("Female"), N_("Male"), N_("Non-binary / other"), no_say]
        ),
        DemographicItem(
            id="age", text=N_("Age"), options=["18-24", "25-34", "35-44", "45-54", "55-64", N_("65 or older"), no_say]
        ),
        DemographicItem(
            id="movies",
            text=N_("How often do you watch movies?"),
            options=[N_("Daily"), N_("Several times a week"), N_("Weekly"), N_("Monthly"), N_("Rarely or never")],
        ),
        DemographicItem(
            id="english",
            text=N_("How fluent is your English?"),
            options=[N_("Native speaker"), N_("Fluent"), N_("Good"), N_("Basic")],
        ),
        DemographicItem(
            id="education",
            text=N_("Highest level of education"),
            options=[
                N_("Secondary school or less"),
                N_("Vocational training"),
                N_("Bachelor's degree"),
                N_("Master's degree"),
                N_("Doctorate"),
                no_say,
            ],
        ),
        DemographicItem(
            id="chatbot_used", text=N_("Have you ever used a chatbot?"), options=[N_("Yes"), N_("No"), N_("Not sure")]
        ),
        DemographicItem(
            id="chatbot_movies",
            text=N_("Have you ever used a chatbot to get movie recommendations?"),
            options=[N_("Yes"), N_("No"), N_("Not sure")],
        ),
    ]


class StudyConfig(Section):
    study: StudySection = Field(description="What the study is and which data it shows.")
    texts: Texts = Field(description="Participant-facing texts (Markdown).")
    sampling: SamplingSection = Field(
        default_factory=SamplingSection, description="Which cut points (situations) are used."
    )
    assignment: AssignmentSection = Field(
        default_factory=AssignmentSection, description="Balanced assignment of situations to participants."
    )
    scale: ScaleSection = Field(default_factory=ScaleSection, description="The rating scale.")
    criteria: list[Criterion] = Field(
        default_factory=lambda: [
            Criterion(id="meaningful", question=N_("How meaningful is this response as the chatbot's next utterance?"))
        ],
        min_length=1,
        description="Rated criteria (`[[criteria]]`); each response gets one scale per criterion.",
    )
    attention_check: AttentionCheckSection = Field(
        default_factory=AttentionCheckSection,
        description="The instructed-response attention check among the situations.",
    )
    comprehension: ComprehensionConfig = Field(
        default_factory=ComprehensionConfig,
        description="An optional comprehension check right after consent, two attempts (Prolific's rules).",
    )
    questionnaire: QuestionnaireSection = Field(
        default_factory=QuestionnaireSection, description="Post-task questionnaire."
    )
    demographics: list[DemographicItem] = Field(
        default_factory=_default_demographics,
        description="Demographic questions (`[[demographics]]`: id, text, options).",
    )
    platform: PlatformConfig = Field(default_factory=PlatformConfig, description="Crowdsourcing platform handshake.")
    prolific: ProlificConfig = Field(
        default_factory=ProlificConfig,
        description="Running the study on Prolific from INFACT: `infact prolific …` (docs/prolific.md).",
    )
    quality: QualityConfig = Field(
        default_factory=QualityConfig, description="Data-quality checks and what a failed check does."
    )
    live: LiveConfig = Field(
        default_factory=LiveConfig,
        description="Live chat with the systems under test (docs/live.md); off unless `[live.systems]` is given.",
    )
    protocol: ProtocolConfig = Field(
        default_factory=ProtocolConfig, description="Rating, pairwise or best–worst protocol (docs/ranking.md)."
    )
    monitoring: MonitoringConfig = Field(
        default_factory=MonitoringConfig,
        description="The stopping rule, declared before the study: stop when settled, at a precision or at a "
        "maximum of participants (docs/ranking.md, 'Watching a study').",
    )
    endpoints: dict[str, Endpoint] = Field(
        default_factory=dict,
        description="OpenAI-compatible servers (`[endpoints.NAME]`: base_url, model, api_key_env, max_concurrency, "
        "timeout_s, sampling) used by endpoint systems, `generate`, judges and LLM bots (docs/llm.md).",
    )
    flow: FlowConfig = Field(
        default_factory=FlowConfig,
        description="The study's order of step kinds (`[flow] steps`), e.g. demographics first or two protocol blocks.",
    )
    aspects: list[Aspect] = Field(
        default_factory=list,
        description='Conversation protocol: the aspects asked per system turn (`level = "turn"`) and about the whole '
        'dialog (`level = "dialogue"`), each with its own labelled scale (`[[aspects]]`, docs/protocols.md).',
    )
    judges: dict[str, JudgeSettings] = Field(
        default_factory=dict,
        description="Automatic judges run by `python -m infact judge --judge NAME` (`[judges.NAME]`: endpoint, "
        "samples, sampling); their answers go to judges/NAME.csv (docs/llm.md).",
    )
    conditions: dict[str, Condition] = Field(
        default_factory=dict,
        description="Between-subjects conditions (`[conditions.NAME]`, at least two): each overlays settings on the "
        "study (`study.systems` as a subset, `study.title`, `study.expected_minutes`, `[texts]`, `[scale]`, "
        "`[[criteria]]`, `[attention_check]`, `[questionnaire]`, `[[demographics]]`, `[protocol]`, `[flow]`). A "
        "participant is assigned at consent, balanced by completions; the group parameter (`?q=NAME`) forces one "
        "(docs/studies.md, 'Between-subjects conditions').",
    )
    _condition_configs: dict = PrivateAttr(default_factory=dict)  # name -> StudyConfig, set by loader.parse_config

    def condition(self, name: str) -> StudyConfig:
        """The study as participants of condition `name` see it (the base study with the condition's overlay)."""
        return self._condition_configs[name]

    @model_validator(mode="before")
    @classmethod
    def _protocol_texts(cls, data):
        return fill_defaults(data)  # a comparison study's texts where none are given (protocol_config.fill_defaults)

    @model_validator(mode="after")
    def _cross_checks(self):
        study_checks(self)  # every cross-section problem at once (infact/study/quality_config.py)
        return self

    @property
    def blocks(self) -> tuple[str, ...]:
        """The protocol blocks (rating, pairwise, …) in the order participants meet them."""
        return blocks_of(self.flow.steps, self.protocol.kind)

    @property
    def regular_per_participant(self) -> int:
        return regular_count(self)


def regular_count(cfg) -> int:
    """Regular situations per participant: the attention check (or a gold conversation) is one of them."""
    gold = cfg.protocol.kind == "conversation" and cfg.protocol.gold is not None
    return cfg.study.situations_per_participant - (1 if cfg.attention_check.enabled or gold else 0)
