"""Every command of `infact …`: its name, the module of this package that defines it, and
its one-line summary for the command list.

The list is all `infact --help` needs, so it imports nothing: a command's module (and with
it pandas, the store, the study loader) is imported only when that command runs or is asked
for its own `--help`. A module's `register(subparsers)` adds its commands' arguments.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    module: str  # under infact.cli
    summary: str


COMMANDS: dict[str, Command] = {
    "new": Command("study", "write a new study folder that runs at once (any protocol; --from your own table)"),
    "validate": Command("study", "check a study folder (config and situations together)"),
    "bots": Command("study", "play bot participants through a study (tests, demos, load)"),
    "import": Command("imports", "import a dataset or system outputs into a study folder"),
    "export": Command("results", "write ratings.csv and every other export"),
    "verify-codes": Command(
        "results", "check (worker ID, completion code) pairs submitted on MTurk against the stored completions"
    ),
    "plan": Command("results", "how many participants a study needs (balanced vs random sampling, power)"),
    "datasheet": Command("results", "write the study's Human Evaluation Datasheet (HEDS 3.0) as JSON and Markdown"),
    "analyze": Command(
        "analyze", "statistics for a ratings table (bootstrap CIs, Friedman, Wilcoxon, mixed model, agreement)"
    ),
    "migrate": Command(
        "stores", "copy a study's records between stores (TinyDB directory, PostgreSQL URL, secrets.toml)"
    ),
    "hash-password": Command("admin", "set or print the researcher password's hash for secrets.toml"),
    "settings-doc": Command("admin", "print or update the generated settings tables (docs/)"),
    "chat-stub": Command("chat", "serve a built-in demo chat system over HTTP on 127.0.0.1"),
    "generate": Command("llm", "write a system's response to every situation (an LLM endpoint, URL or callable)"),
    "judge": Command("llm", "let an LLM judge answer the study's own items (judges/NAME.csv)"),
    "prolific": Command("prolific", "run the study on Prolific: create, publish, sync, review, bonus, message"),
}
