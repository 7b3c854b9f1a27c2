"""Stores: where records are kept (layer 3). Backends behind one protocol (`infact.storage.Storage`).

    records.py, summary.py, group_commit.py   what every backend shares
    memory.py      in-process, for tests and previews
    tinydb/        the embedded default: a directory of per-participant TinyDB files
    sql/           PostgreSQL (hosted studies) and SQLite
    config.py      which store a deployment uses
    outage.py      a store that cannot be reached: logged once per outage, stored when it ends
    live.py, migrate.py   work on any store through the `infact.storage` facade

May import foundations and `infact.study`/`infact.deployment`; never the run, results or interfaces.
"""
