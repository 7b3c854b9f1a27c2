"""results"""

# Bootstrap replicates behind every interval INFACT shows: `analyze`'s default, the dashboard,
# the charts and the report, so the same data give the same intervals (same seed) everywhere.
N_BOOT = 2000
