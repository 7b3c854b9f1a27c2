"""The bot strategies' names, apart from the bots themselves so `infact bots --help` lists them without
importing the flow (a whole process in under 0.3 s: bench/cli_help.py)."""

STRATEGIES = (
    "attentive",
    "straightliner",
    "speeder",
    "fails-attention",
    "refresh-midway",
    "abandons",
    "fails-comprehension",
)
SIMULATED = "llm"  # an LLM plays the participant (`bots --strategy llm`); never part of the mix
