"""Between-subjects conditions of a study: `[conditions.NAME]` overlays of settings on the base study.toml,
each merged and validated as a whole study (overlay.py). Part of the study layer: may import foundations
(infact.errors, infact.values) and nothing above infact.study."""
