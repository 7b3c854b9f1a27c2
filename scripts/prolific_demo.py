"""The paid Prolific cycle against the API stub, on a copy of data/demo (docs/prolific.md).

    python scripts/prolific_demo.py [--keep DIR]

It starts simulations/prolific_stub.py on a free port, copies the demo study into a temporary folder
(set to `platform.kind = "prolific"`), lets four bot participants with Prolific IDs take it, adds their
submissions to the stub (one of them RETURNED), then runs the real commands with `--base-url`:
`infact prolific create`, `publish --yes`, `sync`, `review`, `review --apply`, `bonus`, `bonus --apply`, and
`bonus --apply` again (which pays nothing). Nothing reaches the network.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import infact.kinds  # noqa: E402, F401  (registers the built-in kinds)
from infact.participation.bots import Bot  # noqa: E402
from infact.storage import open_storage  # noqa: E402
from infact.study.loader import load_study  # noqa: E402
from simulations.prolific_stub import ProlificStub  # noqa: E402

TOKEN = "demo-token-not-a-real-one"
STRATEGIES = [
    ("attentive", "AWAITING REVIEW"),
    ("attentive", "AWAITING REVIEW"),
    ("fails-attention", "AWAITING REVIEW"),
    ("abandons", "RETURNED"),
]


def demo_study(folder: Path) -> Path:
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8").replace(
        '[platform]\nkind = "none"', '[platform]\nkind = "prolific"\ncompletion_code = "C1DEMO23"'
    )
    toml.write_text(text + '\n[prolific]\nstudy_url = "https://study.example.org/"\nplaces = 4\n', encoding="utf-8")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary folder")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="infact-prolific-demo-"))
    folder, db = demo_study(work / "study"), work / "db"
    with ProlificStub(TOKEN) as stub:
        env = {**os.environ, "PROLIFIC_TOKEN": TOKEN, "PYTHONPATH": str(REPO)}
        common = ["--study", str(folder), "--db", str(db), "--base-url", stub.url]

        def infact(*words: str) -> None:
            print(f"\n$ infact prolific {' '.join(words)}", flush=True)
            cmd = [sys.executable, "-m", "infact", "prolific", words[0], *common, *words[1:]]
            subprocess.run(cmd, env=env, cwd=REPO, check=False)

        study = load_study(folder)
        storage = open_storage(db)
        infact("create")
        infact("publish", "--yes")
        (prolific_id,) = stub.studies
        bonus_csv = work / "bonus.csv"
        lines = []
        for i, (strategy, status) in enumerate(STRATEGIES):
            pid = f"{i:024x}"
            query = {"PROLIFIC_PID": pid, "STUDY_ID": prolific_id, "SESSION_ID": f"{i:024d}"}
            Bot(study, storage, strategy, seed=i, query=query).run()
            stub.add_submission(prolific_id, pid, status, id=query["SESSION_ID"])  # SESSION_ID is its id
            if strategy == "attentive":
                lines.append(f"{pid},0.50\n")
        storage.close()
        bonus_csv.write_text("".join(lines), encoding="utf-8")
        infact("sync")
        infact("review")
        infact("review", "--apply")
        infact("bonus", "--csv", str(bonus_csv))
        infact("bonus", "--csv", str(bonus_csv), "--apply")
        infact("bonus", "--csv", str(bonus_csv), "--apply")
        with urllib.request.urlopen(f"{stub.url}/_stub/state") as answer:
            state = json.load(answer)
        paid = sum(1 for c in state["log"] if c["path"].endswith("/pay/") and c.get("carried_out"))
        print(f"\nthe stub saw {len(state['log'])} calls; pay calls: {paid} (exactly one); work folder: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
