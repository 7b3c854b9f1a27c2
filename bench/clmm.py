"""Benchmark: the ordinal model (cumulative-link mixed model) on 10,000 ratings, beside R's ordinal::clmm.

    python bench/clmm.py [--participants 334] [--situations 372] [--runs 3] [--no-r]

Simulates an INFACT-shaped study (3 systems; each participant rates every system on 10 of 372 situations:
334 participants give 10,020 ratings; crossed random intercepts, SDs 1.0 and 0.6, 5 categories;
simulations/ordinal.py) and times `fit_ordinal_model` (infact/results/ratings/ordinal.py: the fit, its
standard errors and the order check) in process CPU seconds, best of `--runs`.

Where `Rscript` with the `ordinal` package exists (Debian: r-base-core r-cran-ordinal), R fits
`clmm(rating ~ system + (1|participant) + (1|situation_id), link = "logit")` to the same CSV and reports
its own CPU seconds for that call (the process's user + system time around it, reading the file excluded);
`ratio_vs_r` = INFACT's CPU / R's, and `max_abs_diff_vs_r` the largest difference between the two on
every estimate (thresholds, effects, SDs) and the log-likelihood. Without R those lines say why they are
missing. Target: `cpu_s <= 5`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from infact.results.ratings.ordinal import fit_ordinal_model  # noqa: E402
from simulations.ordinal import simulate_ordinal  # noqa: E402

R_SCRIPT = r"""
suppressPackageStartupMessages(library(ordinal))
invisible(Sys.setlocale("LC_COLLATE", "C"))
d <- read.csv(commandArgs(TRUE)[1], colClasses = "character")
d$rating <- factor(as.integer(d$rating), ordered = TRUE)
d$system <- factor(d$system, levels = sort(unique(d$system)))
t0 <- proc.time()
fit <- clmm(rating ~ system + (1 | participant) + (1 | situation_id), data = d, link = "logit")
t1 <- proc.time()
cat(sprintf("cpu %.6f\n", (t1[["user.self"]] + t1[["sys.self"]]) - (t0[["user.self"]] + t0[["sys.self"]])))
est <- c(fit$alpha, fit$beta, fit$ST[["participant"]], fit$ST[["situation_id"]], as.numeric(logLik(fit)))
writeLines(sprintf("est %.10g", est))
"""


def ours(df, runs: int) -> tuple[float, float, dict]:
    best_cpu, best_wall, result = float("inf"), float("inf"), None
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fit_ordinal_model(df)
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return best_cpu, best_wall, result


def with_r(df) -> tuple[float, list[float]] | str:
    """R's CPU seconds and estimates, or why there are none."""
    if not shutil.which("Rscript"):
        return "no Rscript on PATH (Debian: apt-get install r-base-core r-cran-ordinal)"
    with tempfile.TemporaryDirectory() as tmp:
        csv, script = Path(tmp) / "ratings.csv", Path(tmp) / "fit.R"
        df.to_csv(csv, index=False)
        script.write_text(R_SCRIPT)
        run = subprocess.run(["Rscript", str(script), str(csv)], capture_output=True, text=True)
    if run.returncode != 0:
        return f"Rscript failed: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}"
    lines = run.stdout.split("\n")
    cpu = next(float(x.split()[1]) for x in lines if x.startswith("cpu "))
    return cpu, [float(x.split()[1]) for x in lines if x.startswith("est ")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--participants", type=int, default=334)
    ap.add_argument("--situations", type=int, default=372)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-r", action="store_true", help="skip R even where it is installed")
    args = ap.parse_args()
    systems = {"KBRD": 0.0, "KGSF": 0.4, "RB-CRS": 1.1}
    df = simulate_ordinal(systems, args.participants, args.situations, 10, 1.0, 0.6, [-2.0, -0.7, 0.5, 1.8], 7)
    cpu, wall, res = ours(df, args.runs)
    print(f"ratings={len(df)}")
    print(f"participants={df['participant'].nunique()}")
    print(f"situations={df['situation_id'].nunique()}")
    print(f"converged={res['converged']}")
    print(f"cpu_s={cpu:.3f}")
    print(f"wall_s={wall:.3f}")
    r = "skipped (--no-r)" if args.no_r else with_r(df)
    if isinstance(r, str):
        print(f"r_cpu_s=none  # {r}")
        return
    r_cpu, r_est = r
    mine = [
        *res["thresholds"].values(),
        *(e["estimate"] for e in res["effects"].values()),
        res["sd_participant"],
        res["sd_situation"],
        res["loglik"],
    ]
    print(f"r_cpu_s={r_cpu:.3f}")
    print(f"ratio_vs_r={cpu / r_cpu:.3f}")
    print(f"max_abs_diff_vs_r={max(abs(a - b) for a, b in zip(mine, r_est, strict=True)):.2e}")


if __name__ == "__main__":
    main()
