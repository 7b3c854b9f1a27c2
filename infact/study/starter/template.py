"""A starting `study.toml` for a freshly imported study.

It is the demo study's configuration with the imported systems and files filled
in: every text, scale and questionnaire item is there to be edited, and the
study validates and runs as it is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

DEMO_TOML = Path(__file__).resolve().parents[3] / "data" / "demo" / "study.toml"


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def render_study_toml(
    study_id: str, systems: list[str], situation_files: list[str], attention_situation: str | None = None
) -> str:
    text = DEMO_TOML.read_text(encoding="utf-8")
    header = (
        "# Study created by `python -m infact import` — edit the texts, then run\n"
        "# `python -m infact validate <this folder>`. Every setting is explained in the README.\n"
    )
    text = re.sub(r"\A(#.*\n)+", header, text)
    text = re.sub(r'(?m)^id = ".*"$', f"id = {json.dumps(study_id)}", text, count=1)
    text = re.sub(r'(?m)^title = ".*"$', 'title = "Which chatbot response makes sense?"', text, count=1)
    text = re.sub(r"(?m)^situations = \[.*\]$", f"situations = {_toml_list(situation_files)}", text, count=1)
    text = re.sub(r"(?m)^systems = \[.*\]$", f"systems = {_toml_list(systems)}", text, count=1)
    text = re.sub(r"(?m)^expected_minutes = .*$", "expected_minutes = 15", text, count=1)
    text = text.replace("It takes about **12 minutes**.", "It takes about **15 minutes**.")
    if attention_situation:
        text = re.sub(
            r'(?m)^situation = ".*"$',
            f"situation = {json.dumps(attention_situation)}  # its dialog is used only for the check",
            text,
            count=1,
        )
    else:
        text = re.sub(r'(?m)^situation = ".*"\n', "", text, count=1)
        text = text.replace(
            "[attention_check]\nenabled = true",
            "[attention_check]\n# Set `situation` to a situation_id to enable the check.\nenabled = false",
            1,
        )
    return text
