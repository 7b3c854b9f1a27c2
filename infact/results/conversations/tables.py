"""Conversation annotations as tables and as CRSArena-Eval's aggregated JSON.

annotations.csv is long: one row per participant × conversation × (system turn × turn aspect, or
dialogue aspect); `turn` is the 0-based turn_ind, empty for dialogue-level rows.

annotations_aggregated.json is CRSArena-Eval's shape, so the field's meta-evaluation scripts run on
INFACT's data unchanged:

    [{"conv_id": "…", "dialogue": [{"turn_ind": 0, "role": "USER", "utterance": "…"},
                                   {"turn_ind": 1, "role": "ASST", "utterance": "…",
                                    "turn_level_aggregated": {"relevance": 3, …}}, …],
      "dial_level_aggregated": {"understanding": 4, …}}]

Each item's annotations are aggregated by their median; gold conversations and excluded
participants are left out. Each entry also carries `system`, `dialog_id` and `dataset` (keys the
field's scripts ignore), so `import annotated` gets the systems back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pandas as pd

from infact.participation.steps.conversation import ANNOTATION_COLUMNS

ROLE_OUT = {"user": "USER", "bot": "ASST"}


def annotations_frame(rows: list[dict]) -> pd.DataFrame:
    """annotations.csv from the conversation kind's rows (records.kind_rows(records, "conversation", aspects))."""
    df = pd.DataFrame(rows, columns=ANNOTATION_COLUMNS)
    df["turn"] = df["turn"].astype("Int64")
    return df.sort_values(
        ["participant", "step_index", "level", "turn", "aspect"], kind="stable", na_position="last"
    ).reset_index(drop=True)


def _median(values: pd.Series):
    m = float(values.median())
    return int(m) if m.is_integer() else m


def aggregated(annotations: pd.DataFrame, turns: dict[str, list[dict]]) -> list[dict]:
    """CRSArena-Eval's aggregated shape from annotations.csv rows and each conversation's turns
    (conversation_id → [{"turn_ind", "role", "text"}]); items without annotations get no value."""
    df = annotations
    if "is_gold" in df:
        df = df[~df["is_gold"].astype(bool)]
    if "excluded" in df:
        df = df[~df["excluded"].astype(bool)]
    out = []
    for cid, conv in df.groupby("conversation_id", sort=True):
        per_turn = {
            int(t): {a: _median(g["value"]) for a, g in rows.groupby("aspect")}
            for t, rows in conv[conv["level"] == "turn"].groupby("turn")
        }
        dial = conv[conv["level"] == "dialogue"]
        dialogue = []
        for t in turns.get(cid, []):
            entry = {"turn_ind": t["turn_ind"], "role": ROLE_OUT.get(t["role"], t["role"]), "utterance": t["text"]}
            if t["role"] == "bot":
                entry["turn_level_aggregated"] = per_turn.get(t["turn_ind"], {})
            dialogue.append(entry)
        first = conv.iloc[0]  # system, dialog_id and dataset: extra keys the field's scripts ignore
        out.append(
            {
                "conv_id": cid,
                "dialogue": dialogue,
                "dial_level_aggregated": {a: _median(g["value"]) for a, g in dial.groupby("aspect")},
                "system": first["system"],
                "dialog_id": first["dialog_id"],
                "dataset": first.get("dataset") or "",
            }
        )
    return out


def turns_from_records(records: Iterable[dict]) -> dict[str, list[dict]]:
    """Each annotated conversation's turns as stored with its annotations (what was shown)."""
    return {
        r["conversation_id"]: r["turns"]
        for r in records
        if r.get("kind") == "conversation" and r.get("conversation_id") and r.get("turns")
    }


def aggregated_json(annotations: pd.DataFrame, records: Iterable[dict]) -> str:
    return json.dumps(aggregated(annotations, turns_from_records(records)), ensure_ascii=False, indent=1)
