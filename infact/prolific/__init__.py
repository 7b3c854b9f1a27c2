"""Running a study on Prolific from INFACT: create the draft, publish, sync submissions, apply the
quality decisions, pay bonuses exactly once, message participants (docs/prolific.md).

`client` speaks HTTP (httpx) with typed errors; what the store keeps is infact/stores/prolific_records.py
(in the stores layer, so participants.csv can read it); `session` ties a study, its store and a client
together; `setup`, `sync`, `review`, `bonus` and `messages` are the operations the CLI
(`infact prolific …`) and the dashboard section call; `ledger` is what each participant was paid for each
reason, `bonus_input` the strict bonus lines, `fair_pay` the effective hourly reward and the top-up.

Layer: results (it may import the foundations, study, stores, run and results layers: the quality
decisions), never infact.ui or infact.cli.
"""
