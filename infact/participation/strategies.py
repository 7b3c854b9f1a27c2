"""The bot strategies' names and what each plants, apart from the bots themselves so `infact bots --help` lists
them without importing the flow (a whole process in under 0.3 s: bench/cli_help.py)."""

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

# What each strategy's answers carry: `--quality` (the planted mean per system) reaches only those that say so.
PLANTS = {
    "attentive": "reads each page for a realistic time and answers around the planted quality of each system "
    "(its own leniency and noise added); passes every check",
    "straightliner": "gives every response of a page the same rating (no planted quality); follows instructions",
    "speeder": "1-2.5 s a page, random answers (no planted quality); follows explicit instructions",
    "fails-attention": "answers like attentive (the planted quality) but ignores the instructed responses",
    "refresh-midway": "attentive (the planted quality), reloads the page half-way and submits a page twice",
    "abandons": "attentive (the planted quality) for 2-5 situations, then closes the tab",
    SIMULATED: "an LLM reads each page as a persona: whatever it answers (nothing planted)",
}

# --quality: which systems the planted quality favours.
QUALITIES = {
    "alike": "every system the same mean: any difference the analysis finds is noise (the default)",
    "ordered": "the systems in study.toml's order, the first best and the last worst",
}
