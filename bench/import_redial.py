"""Time `import redial` on a ReDial test split of realistic size (~1,300 dialogs).

The file is built by replicating the real sample in ../shared/data (fresh
conversationIds) or, when that folder is absent, by a synthetic generator.
Prints dialogs=, megabytes=, seconds= and ratio= (import time over a baseline of
json.loads on every line, measured in the same run), one per line.

    python bench/import_redial.py [--dialogs 1342]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.importers.redial import import_redial

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "redial_sample" / "test_data_head20.jsonl"


def synthetic(rng: random.Random) -> dict:
    mentions = {str(rng.randint(70000, 210000)): f"Movie {i}  ({rng.randint(1950, 2018)})" for i in range(5)}
    ids = list(mentions)
    msgs = []
    for i in range(rng.randint(10, 24)):
        sender = 1 if rng.random() < 0.5 else 2
        msgs.append(
            {
                "timeOffset": i * 20,
                "text": f"message {i} about @{rng.choice(ids)} and more words here",
                "senderWorkerId": sender,
                "messageId": i,
            }
        )
    return {
        "movieMentions": mentions,
        "respondentQuestions": {},
        "initiatorQuestions": [],
        "messages": msgs,
        "conversationId": "0",
        "respondentWorkerId": 2,
        "initiatorWorkerId": 1,
    }


def build(path: Path, n: int) -> None:
    rng = random.Random(0)
    base = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()] if SAMPLE.is_file() else None
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            d = dict(base[i % len(base)]) if base else synthetic(rng)
            d["conversationId"] = str(100000 + i)
            fh.write(json.dumps(d) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dialogs", type=int, default=1342, help="ReDial's test split has 1,342 dialogs")
    n = ap.parse_args().dialogs
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "test_data.jsonl"
        build(src, n)
        out = Path(tmp) / "study"
        out.mkdir()
        (out / "study.toml").write_text("# bench\n")  # keep: the bench times the import, not the template
        t0 = time.perf_counter()
        for line in src.read_text(encoding="utf-8").splitlines():
            json.loads(line)
        baseline = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = import_redial(src, out)
        seconds = time.perf_counter() - t0
        print(f"source={'shared sample x' + str(-(-n // 20)) if SAMPLE.is_file() else 'synthetic'}")
        print(f"dialogs={report.counts['dialogs']}")
        print(f"situations={report.counts['situations']}")
        print(f"megabytes={src.stat().st_size / 1e6:.1f}")
        print(f"seconds={seconds:.3f}")
        print(f"baseline_json_seconds={baseline:.3f}")
        print(f"ratio={seconds / baseline:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
