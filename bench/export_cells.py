"""What neutralising and quoting text cells (issue 36, infact/table_schema.py) costs an export.

A ratings.csv of N rows (participants' tokens, situations, systems, criteria, labels as text; ratings, seconds and
flags as numbers), written the old way (`to_csv`, nothing neutralised) and the new way (`TableSchema.csv_bytes`:
every text cell checked, neutralised and quoted), in the same run. Prints seconds and the ratio new/old.

    python bench/export_cells.py [N]        # default 200000 rows
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import infact.kinds  # noqa: F401  (registers the built-in kinds)
from infact.results import kinds
from infact.table_schema import restored_frame


def table(n: int) -> pd.DataFrame:
    schema = kinds.schema_for("ratings.csv")
    rng = np.random.default_rng(0)
    texts = ["-starts like a formula", "=1+1", "plain", "tok", "Alpha", "meaningful"]

    def column(kind: str):
        if kind == "integer":
            return rng.integers(1, 6, n)
        if kind == "number":
            return rng.random(n) * 60
        if kind == "boolean":
            return rng.integers(0, 2, n).astype(bool)
        return [texts[i % len(texts)] + str(i % 997) for i in range(n)]

    return pd.DataFrame({c.name: column(c.type) for c in schema.columns})


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(n: int = 200_000) -> None:
    schema = kinds.schema_for("ratings.csv")
    frame = table(n)
    old = best(lambda: schema.conform(schema.typed(frame)).to_csv(index=False).encode("utf-8"))
    new = best(lambda: schema.csv_bytes(frame))
    read = pd.read_csv(io.BytesIO(schema.csv_bytes(frame)), dtype=schema.read_dtypes())
    back = best(lambda: restored_frame(read))
    print(f"ratings.csv, {n:,} rows")
    print(f"  plain to_csv           {old:6.2f} s  (baseline)")
    print(f"  neutralised and quoted {new:6.2f} s  ratio {new / old:4.2f}")
    print(f"  restoring on read      {back:6.2f} s  ratio {back / old:4.2f} (of the baseline write)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200_000)
