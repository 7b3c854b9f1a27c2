"""What the crowd label models (infact/results/crowd/) add to an export (`export --label-models`), declared beside the
other tables."""

from __future__ import annotations

from infact.table_schema import Column as C
from infact.table_schema import TableSchema

RELIABILITY_COLUMNS = (
    C(
        "reliability_dawid_skene",
        "number",
        "`export --label-models`: Dawid–Skene's expected accuracy of this annotator's ratings (0–1; empty without "
        "the option, for fewer than 2 ratings, or for excluded participants)",
    ),
    C(
        "reliability_mace",
        "number",
        "`export --label-models`: MACE's probability that this annotator knows the label rather than guesses (0–1)",
    ),
)

SOFT_LABELS = TableSchema(
    "soft_labels",
    "`export --label-models` (optional extra `crowd`): per item (situation × system × criterion) and label model "
    "(Dawid–Skene, MACE), the probability of each scale point being the true rating (docs/llm.md).",
    (
        C("situation_id", "string", "the situation", True),
        C("system", "string", "the system rated", True),
        C("criterion", "string", "the criterion (when the study has several)"),
        C("model", "string", "`dawid_skene` or `mace`", True),
        C("label", "integer", "a scale point", True),
        C("probability", "number", "P(true rating = label) under the model", True),
    ),
)
