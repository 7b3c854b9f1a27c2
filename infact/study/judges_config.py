"""`[judges.NAME]`: an LLM that answers the study's own items, run by `python -m infact judge`.

    [judges.llama-judge]
    endpoint = "local-llama"   # an [endpoints.NAME] table
    samples = 3                # answers drawn per item
    temperature = 0.7

The judge is given the study's own instructions, criteria and labelled scale (docs/llm.md).
"""

from __future__ import annotations

from pydantic import Field

from infact.study.endpoints import Sampling


class JudgeSettings(Sampling):
    endpoint: str = Field(description="The `[endpoints.NAME]` table (study or deployment secrets) that answers as the judge.")
    samples: int = Field(default=1, ge=1, le=20, description="Answers drawn per item (each its own call, its own row in judges/NAME.csv); use temperature > 0 for samples > 1.")
    preamble: str | None = Field(default=None, description="Extra text put before the study's instructions in the judge's system message (e.g. a persona); the instructions, criteria and scale are always the study's own.")
