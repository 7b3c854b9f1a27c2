"""Benchmark: INFACT's ranking side by side with LMArena's own package, `arena-rank` 0.1.1, on the same vote files.

    python bench/arena_rank.py [--votes 100000] [--systems 20] [--participants 2000] [--runs 1]
                               [--venv ~/.cache/infact-bench/arena-rank-venv]

`arena-rank` pins numpy 2.3.3 and jax 0.8.1, so it never enters the project's venv: the bench builds a
venv of its own under `--venv` (reused across runs; `pip install arena-rank==0.1.1` from PyPI) and skips,
saying why, when that fails (no network, no PyPI). Nothing is faked: both sides run as child processes on
the same CSV files and print their strengths as JSON.

- `strength_max_diff`: tie-free balanced votes; INFACT's Bradley–Terry strengths (centred θ) against
  arena-rank's ratings turned back into θ = (rating − 1000)·ln 10 / 400, centred. Target ≤ 1e-4.
- `cpu_ratio`: process CPU of INFACT's fit + intervals (a child reading the CSV, `bradley_terry.design`,
  `rank_systems` with 2,000 participant-bootstrap replicates) over arena-rank's fit + sandwich intervals
  (a child reading the CSV, `PairDataset.from_pandas`, `BradleyTerry.compute_ratings_and_cis`, JAX's
  compilation included). Target ≤ 0.5. Both include their imports: what a user waits for.
- `reweight_max_diff`: tie-free votes with every pair involving the top system drawn 6× as often;
  INFACT's `--reweight` fit (infact/results/ranking/balance.py) against `reweighted=True`
  (`min_pair_count=1`, so both weight each pair by the inverse of its count). Target ≤ 1e-3.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulations.votes import draw_outcomes, simulate_votes  # noqa: E402

VERSION = "0.1.1"
DEFAULT_VENV = Path.home() / ".cache" / "infact-bench" / "arena-rank-venv"

ARENA = """
import json, math, sys
import pandas as pd
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset
df = pd.read_csv(sys.argv[1])
df = pd.DataFrame({"model_a": df["system_a"], "model_b": df["system_b"],
                   "winner": (df["winner"] == df["system_a"]).map({True: "model_a", False: "model_b"})})
ds = PairDataset.from_pandas(df, reweighted=sys.argv[2] == "1", min_pair_count=1)
res = BradleyTerry(len(ds.competitors)).compute_ratings_and_cis(ds, ci_method="sandwich")
theta = [(float(r) - 1000.0) * math.log(10) / 400.0 for r in res["ratings"]]
print(json.dumps(dict(zip(res["competitors"], theta))))
"""

INFACT = """
import json, sys
import pandas as pd
from infact.stats import bradley_terry as bt
df = pd.read_csv(sys.argv[1])
systems = sorted(set(df["system_a"]) | set(df["system_b"]))
a, b = (pd.Categorical(df[c], categories=systems).codes for c in ("system_a", "system_b"))
outcome = (df["winner"] != df["system_a"]).astype(int).to_numpy()  # tie-free: 0 = a wins, 1 = b wins
cluster, clusters = pd.factorize(df["participant"], sort=True)
d = bt.design(a, b, outcome, cluster, systems, [str(c) for c in clusters])
if sys.argv[2] == "1":
    from infact.results.ranking.balance import reweighted_design
    d = reweighted_design(d)
res = bt.rank_systems(d)
print(json.dumps({r["system"]: r["strength"] for r in res["ranking"]}))
"""


def ensure_venv(venv: Path) -> str | None:
    """The venv's python with arena-rank installed, or None (and why, printed) when it cannot be built."""
    python = venv / "bin" / "python"
    check = [
        str(python),
        "-c",
        f"import arena_rank, importlib.metadata as m; assert m.version('arena-rank') == '{VERSION}'",
    ]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return str(python)
    print(f"building {venv} (arena-rank {VERSION}, jax, numpy 2.3.3: a few minutes, once)", file=sys.stderr)
    venv.parent.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)] if not python.exists() else None,
        [str(python), "-m", "pip", "install", "-q", f"arena-rank=={VERSION}"],
    ]
    for step in filter(None, steps):
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode:
            print(
                f"arena_rank=skipped: `{' '.join(step[-3:])}` failed, PyPI out of reach? {proc.stderr.strip()[-300:]}"
            )
            return None
    return str(python) if subprocess.run(check, capture_output=True).returncode == 0 else None


def child(argv: list[str]) -> tuple[dict, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{argv[0]} failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), cpu


def skewed_votes(n_systems: int, n_votes: int, n_participants: int, seed: int) -> pd.DataFrame:
    """Tie-free votes whose pairs with the top system (S1) are drawn 6× as often as the others."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, n_systems)
    i, j = np.triu_indices(n_systems, 1)
    w = np.where(i == 0, 6.0, 1.0)
    pick = rng.choice(len(i), size=n_votes, p=w / w.sum())
    flip = rng.random(n_votes) < 0.5
    a, b = np.where(flip, j[pick], i[pick]), np.where(flip, i[pick], j[pick])
    out = draw_outcomes(theta[a] - theta[b], 0.0, rng)
    names = np.array([f"S{k + 1}" for k in range(n_systems)], dtype=object)
    return pd.DataFrame(
        {
            "participant": [f"p{k:05d}" for k in rng.integers(0, n_participants, n_votes)],
            "system_a": names[a],
            "system_b": names[b],
            "winner": np.where(out == 0, names[a], names[b]),
        }
    )


def centred(s: dict) -> dict:
    mean = float(np.mean(list(s.values())))
    return {k: v - mean for k, v in s.items()}


def compare(arena_py: str, path: Path, reweight: bool) -> tuple[float, float, float]:
    flag = "1" if reweight else "0"
    ours, ours_cpu = child([sys.executable, "-c", INFACT, str(path), flag])
    theirs, theirs_cpu = child([arena_py, "-c", ARENA, str(path), flag])
    ours, theirs = centred(ours), centred(theirs)
    return max(abs(ours[k] - theirs[k]) for k in ours), ours_cpu, theirs_cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--votes", type=int, default=100_000)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--participants", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = ap.parse_args()
    arena_py = ensure_venv(args.venv)
    if arena_py is None:
        return
    print(f"load_average={os.getloadavg()[0]:.1f} (2 cores) votes={args.votes} systems={args.systems}")
    with tempfile.TemporaryDirectory() as tmp:
        plain, skewed = Path(tmp) / "balanced.csv", Path(tmp) / "skewed.csv"
        simulate_votes(np.linspace(1.0, -1.0, args.systems), 0.0, args.votes, args.participants, seed=1).to_csv(
            plain, index=False
        )
        skewed_votes(args.systems, args.votes, args.participants, seed=2).to_csv(skewed, index=False)
        for run in range(args.runs):
            diff, ours_cpu, theirs_cpu = compare(arena_py, plain, reweight=False)
            rdiff, _, _ = compare(arena_py, skewed, reweight=True)
            print(
                f"run={run + 1} strength_max_diff={diff:.2e} (target <= 1e-4) reweight_max_diff={rdiff:.2e} (<= 1e-3)"
            )
            print(
                f"run={run + 1} infact_cpu_s={ours_cpu:.2f} arena_rank_cpu_s={theirs_cpu:.2f} "
                f"cpu_ratio={ours_cpu / theirs_cpu:.2f} (target <= 0.5)"
            )


if __name__ == "__main__":
    main()
