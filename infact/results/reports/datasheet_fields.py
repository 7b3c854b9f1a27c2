"""The datasheet's building blocks (infact/results/reports/datasheet.py): one HEDS field, a quoted text."""

from __future__ import annotations

import hashlib

PROTOCOL_WORDS = {
    "rating": "each response rated on a labelled scale (absolute rating)",
    "pairwise": "two systems' responses side by side, a forced choice of the better (relative, pairwise)",
    "pairwise_dialog": "two systems' whole conversations side by side, a choice of the better (ACUTE-Eval style)",
    "best_worst": "several systems' responses, a choice of the best and the worst (best–worst scaling)",
    "conversation": "whole conversations annotated turn by turn and as a whole (aspects on labelled scales)",
}


def field(fid: str, question: str, value, source: str, fill: str = "") -> dict:
    return {
        "id": fid,
        "question": question,
        "value": value,
        "source": source,
        **(
            {"missing": fill or "not recorded by INFACT; add it to the datasheet by hand"}
            if value in (None, "", [])
            else {}
        ),
    }


def quoted(text: str | None) -> dict | None:
    """A participant-facing text quoted verbatim with its SHA-256, so a reader can check it is the one shown."""
    if not text:
        return None
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}
