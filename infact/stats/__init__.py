"""Foundations: statistical models shared by the run and the results.

Bradley-Terry with Davidson ties (`bradley_terry`), its participant-cluster sandwich covariance
(`sandwich`), fast Wilcoxon signed-rank p-values (`signed_rank`) and the cumulative-link mixed model of
ordinal ratings, R's `ordinal::clmm` (`clmm`). Imports nothing from INFACT
but `infact.errors`: the adaptive pair scheduler (the run) and the results both build on it.
"""

# Bootstrap replicates behind every interval INFACT shows: `analyze`'s default, the dashboard,
# the charts and the report, so the same data give the same intervals (same seed) everywhere.
N_BOOT = 2000
