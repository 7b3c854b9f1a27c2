"""The TinyDB store's participant summaries: `summaries/<shard>.json` beside each shard.

Each append rewrites its participant's summary (infact.stores.summary: the funnel
facts folded from the shard's records, ~500 bytes) together with the signature of the
shard file it describes. A summary is derived data: it is written without an fsync,
and a reader uses it only while that signature still matches the shard on disk;
otherwise (a crash between the two writes, a store from before summaries, a writer
racing the reader) the shard itself is read and the summary written again. So a stale
summary costs one shard read, never a wrong number.

Reading 2,000 summaries (~1 MB) instead of 2,000 shards (~60 MB) is what puts the
dashboard's first numbers on screen in well under a second (bench/dashboard.py).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol, TypeVar

import orjson

from infact.stores.records import PARTICIPANT_NAME
from infact.stores.summary import ParticipantSummary, fold, gc_paused
from infact.stores.tinydb.chat_log import LOG_KINDS, ChatLog


class TinyDBStorage(Protocol):
    """What the summaries need of the TinyDB store (infact.stores.tinydb.store, which imports this module)."""

    shards: Path
    summary_files: SummaryFiles
    chat_log: ChatLog

    def records(
        self, *, study: str | None = None, participant: str | None = None, kind: str | None = None
    ) -> list[dict]: ...


VERSION = 3  # bump when ParticipantSummary's fold changes: older files are then rebuilt from their shards
S = TypeVar("S", bound=ParticipantSummary)


def signature(st: os.stat_result) -> list[int]:
    return [st.st_ino, st.st_mtime_ns, st.st_size]


class SummaryFiles:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, shard: str, sig: list[int] | tuple, records: list[dict]) -> None:
        """The summary of `records`, the content of the shard file with signature `sig`."""
        by_study = {study: {p: s.to_json() for p, s in people.items()} for study, people in fold(records).items()}
        data = orjson.dumps({"v": VERSION, "sig": list(sig), "n": len(records), "studies": by_study})
        # One temporary name per thread (not per write): a writer killed mid-write leaves at most
        # one stray file per thread, and the rename makes every complete summary appear at once.
        tmp = self.folder / f".{shard}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            tmp.write_bytes(data)
            os.replace(tmp, self.folder / f"{shard}.json")
        except OSError:
            tmp.unlink(missing_ok=True)  # derived data: the next reader rebuilds it from the shard

    def remove(self, shard: str) -> None:
        (self.folder / f"{shard}.json").unlink(missing_ok=True)

    def read(self, shard: str, sig: list[int]) -> dict | None:
        """The stored summary of this shard if it describes the file with signature `sig`."""
        try:
            data = orjson.loads((self.folder / f"{shard}.json").read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("v") != VERSION or data.get("sig") != sig:
            return None
        return data


def read_all(store: TinyDBStorage, study: str, cls: type[S] = ParticipantSummary) -> dict[str, S]:
    """{participant: summary} of one study from the summary files, each checked against its
    shard; a missing or stale one is rebuilt from the shard (store's reader: locks, quarantine)."""
    return read_counted(store, study, cls)[0]


def read_counted(
    store: TinyDBStorage, study: str, cls: type[S] = ParticipantSummary
) -> tuple[dict[str, S], dict[str, int], int]:
    """`read_all`, plus how many records of each shard the summaries cover and the bytes of the
    chat log folded in: where a change cursor continues after them (`summaries_since`)."""
    files: SummaryFiles = store.summary_files
    out: dict[str, S] = {}
    seen: dict[str, int] = {}
    with os.scandir(store.shards) as entries, gc_paused():
        for entry in entries:
            name = entry.name
            if not name.endswith(".json") or name.startswith(".") or not PARTICIPANT_NAME.match(name[:-5]):
                continue
            shard = name[:-5]
            try:
                sig = signature(entry.stat())
            except FileNotFoundError:
                continue  # purged since the directory was listed
            data = files.read(shard, sig)
            if data is None:
                data = _rebuild(store, files, shard, sig)
            seen[shard] = data["n"]
            for pid, facts in data["studies"].get(study, {}).items():
                out[pid] = cls.from_json(facts)
        # Live-chat records live in one log, not in the shards (infact.stores.tinydb.chat_log): folded in
        # here, so a participant chatting right now is "active" in the first numbers too.
        chats, chat_offset = store.chat_log.changes(0)
        fold((r for r in chats if r.get("study") == study), cls, into={study: out})
    return out, seen, chat_offset


def _rebuild(store: TinyDBStorage, files: SummaryFiles, shard: str, sig: list[int]) -> dict:
    # the shard's own records (the store's reader adds the participant's chat-log records)
    records = [r for r in store.records(participant=shard) if r.get("kind") not in LOG_KINDS]
    try:
        unchanged = signature(os.stat(store.shards / f"{shard}.json")) == sig
    except FileNotFoundError:
        unchanged = False  # set aside or purged meanwhile
    if unchanged:  # files are replaced, never changed in place: these records are that file's
        files.write(shard, sig, records)
    by_study = fold(records)
    return {
        "n": len(records),
        "studies": {s: {p: x.to_json() for p, x in people.items()} for s, people in by_study.items()},
    }
