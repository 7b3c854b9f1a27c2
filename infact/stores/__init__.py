"""Stores: where records are kept (layer 3). Backends behind one protocol (`infact.storage.Storage`, which
imports them: nothing here imports it).

    records.py, summary.py, group_commit.py   what every backend shares
    memory.py      in-process, for tests and previews
    tinydb/        the embedded default: a directory of per-participant TinyDB files
    sql/           PostgreSQL (hosted studies) and SQLite
    config.py      which store a deployment uses
    outage.py      a store that cannot be reached: logged once per outage, stored when it ends
    live.py        a store's new records handed on (the dashboard's feed), on any backend

May import foundations and `infact.study`/`infact.deployment`; never the run, results or interfaces.
"""
