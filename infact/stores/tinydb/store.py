"""The embedded default store: a directory of per-participant TinyDB files.

One small TinyDB file per participant (`<dir>/shards/<participant>.json`) instead of
one big file, because TinyDB rewrites its whole file on every insert: with one file,
saving an answer costs ~400 ms at 20k records; with a shard per participant it costs
the same at 20k as at 100. Each write goes to a temporary file that is fsynced and
renamed over the shard: a crash mid-write leaves the previous complete file, never a
truncated one. There is no write cache: when `append` returns, the record is on disk.

The records of live chats (`chat_log.LOG_KINDS`) and the visits to the study page
(`_visits`, `chat_log.LOG_NAMES`) go instead to `chats.jsonl`, one append-only file whose
concurrent appends share one fsync (infact.stores.tinydb.chat_log): a message or a visit
costs a line, not a whole-file rewrite, and no new file. A participant's records are their
shard's, then their chat records.

Locking: writes and re-reads of a shard hold one of `STRIPES` locks (a thread lock
plus an OS file lock in `locks/`, chosen by the file's name), so TinyDB calls on one
file never overlap, answers of different participants are saved in parallel, and
`locks/` holds a fixed number of files however many participants there are.
`lock()` is a separate store-wide lock for critical sections such as assignment.

Also in the directory: `journal.log`, `quarantine/` (see infact.stores.tinydb.files),
`summaries/` (each participant's funnel facts, see infact.stores.tinydb.summaries)
and `index/platform_id/`: one small file per (study, platform ID) naming the
participant, written before the arrival itself and checked against it when read,
so `arrival_by_platform_id` reads two small files instead of every arrival.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from filelock import FileLock, Timeout

from infact.errors import Problem
from infact.fileio import atomic_write_text, fsync_dir
from infact.stores.records import (
    PARTICIPANT_NAME,
    StorageError,
    check_record,
    copy_record,
    indexed_arrival,
    matches,
    platform_key,
)
from infact.stores.summary import ParticipantSummary
from infact.stores.tinydb.chat_log import LOG_KINDS, LOG_NAMES, LOGGED_ELSEWHERE, ChatLog, in_log
from infact.stores.tinydb.files import (
    DamagedShard,
    Journal,
    ShardCache,
    append_to_shard,
    orphan_target,
    quarantine,
    quarantined,
    read_shard,
    records_of,
)
from infact.stores.tinydb.summaries import SummaryFiles, read_all, read_counted

STRIPES = 64
CACHE_SHARDS = 2000  # parsed shards kept in memory: the active participants, not all 10,000
INDEX_BUILT = ".complete"  # marks an index/platform_id/ that covers every stored arrival


@dataclass(frozen=True)
class JournalCursor:
    """Where `changes()` stopped: a journal offset and how many records of each shard were seen."""

    journal: tuple
    offset: int
    seen: dict = field(default_factory=dict)
    chat_offset: int = 0  # bytes of chats.jsonl already reported


def _stripe(name: str) -> int:
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "big") % STRIPES


class TinyDBStorage:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.shards = self.path / "shards"
        self.locks = self.path / "locks"
        self.index = self.path / "index" / "platform_id"
        self.quarantine = self.path / "quarantine"
        if self.path.is_file():
            raise StorageError(
                Problem(str(self.path), "is a file; the TinyDB store is a directory — pass a directory path")
            )
        try:
            for folder in (self.shards, self.locks, self.index):
                folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                Problem(
                    str(self.path),
                    f"cannot create the data directory ({exc.strerror}); choose a writable path with --db or INFACT_DB",
                )
            ) from exc
        self._store_thread_lock = threading.RLock()
        # fcntl-based: the kernel releases it if a process dies holding it.
        self._store_file_lock = FileLock(str(self.path / ".lock"), poll_interval=0.002, thread_local=False)
        self._thread_stripes = {ns: [threading.Lock() for _ in range(STRIPES)] for ns in ("s", "i")}
        self.journal = Journal(self.path / "journal.log")
        self._cache = ShardCache(CACHE_SHARDS)
        self.summary_files = SummaryFiles(self.path / "summaries")
        self.chat_log = ChatLog(self.path / "chats.jsonl", self.path / "chats.lock")
        self._remove_orphans()
        if not (self.index / INDEX_BUILT).exists() and not any(self.shards.glob("*.json")):
            self._mark_index_built()

    # -- locks and files -------------------------------------------------
    def _file_lock(self, ns: str, name: str) -> FileLock:
        return FileLock(str(self.locks / f"{ns}{_stripe(name):02d}.lock"), poll_interval=0.001, thread_local=False)

    @contextmanager
    def _striped(self, ns: str, name: str) -> Iterator[None]:
        """ns "s": shard files; "i": index files. Always taken i before s, never the reverse."""
        with self._thread_stripes[ns][_stripe(name)]:
            with self._file_lock(ns, name):
                yield

    def _remove_orphans(self) -> None:
        """Delete temp files of killed writers, and the per-participant lock files of
        older versions. A temp file is deleted only while holding its file's lock, so a
        live writer in another process keeps its own."""
        for folder, ns in ((self.shards, "s"), (self.index, "i")):
            for tmp in folder.glob(".*.tmp"):
                target = orphan_target(tmp)
                if target is None:
                    continue
                lock = self._file_lock(ns, Path(target).stem if ns == "s" else target)
                try:
                    lock.acquire(timeout=0)
                except Timeout:
                    continue  # a writer is at work on that file right now
                try:
                    tmp.unlink(missing_ok=True)
                finally:
                    lock.release()
        for tmp in self.summary_files.folder.glob(".*.tmp"):  # derived files: a live writer just rebuilds
            tmp.unlink(missing_ok=True)
        for old in self.locks.glob("*.lock"):
            if not (old.stem[:1] in ("s", "i") and old.stem[1:].isdigit()):
                old.unlink(missing_ok=True)  # one per participant before: they piled up

    def _shard_path(self, shard: str) -> Path:
        return self.shards / f"{shard}.json"

    @staticmethod
    def _signature(st: os.stat_result) -> tuple:
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load(self, shard: str, path: Path) -> tuple[list[dict], dict | None]:
        """A shard's records and TinyDB's data they came from (cached); the caller holds its stripe lock."""
        try:
            sig = self._signature(path.stat())
        except FileNotFoundError:
            self._cache.pop(shard)
            return [], None
        cached = self._cache.get(shard, sig)
        if cached is not None:
            return cached
        try:
            records, data = read_shard(path)
        except DamagedShard as exc:
            quarantine(path, self.quarantine, str(exc))
            self._cache.pop(shard)
            return [], None
        self._cache.put(shard, sig, records, data)
        return records, data

    def _read_shard(self, shard: str) -> list[dict]:
        path = self._shard_path(shard)
        try:
            sig = self._signature(path.stat())
        except FileNotFoundError:
            return []
        cached = self._cache.get(shard, sig)
        if cached is not None:  # unchanged since we last parsed it
            return cached[0]
        with self._striped("s", shard):
            return self._load(shard, path)[0]

    def _shard_names(self) -> list[str]:
        return sorted(p.stem for p in self.shards.glob("*.json") if not p.name.startswith("."))

    # -- protocol ----------------------------------------------------------
    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._store_thread_lock:
            with self._store_file_lock:
                yield

    def append(self, record: dict) -> bool:
        check_record(record)
        shard = str(record["participant"])
        pid = indexed_arrival(record)
        if pid is not None:
            self._index_arrival(str(record["study"]), pid, shard)
        if in_log(record):
            return self.append_in_order([record])[0]
        path = self._shard_path(shard)
        with self._striped("s", shard):
            existing, data = self._load(shard, path)  # the file as it is now (its lock is held)
            if any(r.get("key") == record["key"] for r in existing):
                return False
            data = append_to_shard(path, copy_record(record), data)
            sig = self._signature(path.stat())
            records = records_of(data)
            self._cache.put(shard, sig, records, data)
            self.summary_files.write(shard, sig, records)
            self.journal.add("a", shard, len(existing) + 1)
            return True

    def append_in_order(self, records: list[dict]) -> list[bool]:
        """`append` of each, in order; chat records together in one sync (infact.chat.session uses it)."""
        if not records or not all(in_log(r) for r in records):
            return [self.append(r) for r in records]
        for r in records:
            check_record(r)
        # Chat records of stores written before chats.jsonl existed are in the shard.
        old = {r.get("key") for p in {str(r["participant"]) for r in records} for r in self._read_shard(p)}
        fresh = [copy_record(r) for r in records if r["key"] not in old]
        stored = iter(self.chat_log.append_many(fresh))
        return [False if r["key"] in old else next(stored) for r in records]

    def purge(self, participant: str) -> int:
        if not PARTICIPANT_NAME.match(str(participant)):
            return 0
        path = self._shard_path(participant)
        chats = self.chat_log.purge(participant)
        with self._striped("s", participant):
            removed = len(self._load(participant, path)[0])
            try:
                path.unlink()
            except FileNotFoundError:
                return chats
            self._cache.pop(participant)
            self.summary_files.remove(participant)
            self.journal.add("p", participant)
        fsync_dir(self.shards)
        return removed + chats

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        names = [participant] if participant is not None else self._shard_names()
        out: list[dict] = []
        for name in names:
            if not PARTICIPANT_NAME.match(name):
                continue
            out.extend(copy_record(r) for r in self._read_shard(name) if matches(r, study, participant, kind))
            if participant is not None and (kind is None or kind in LOG_KINDS or participant in LOG_NAMES):
                out.extend(r for r in self.chat_log.records(name) if matches(r, study, participant, kind))
        if participant is None and (kind is None or kind in LOG_KINDS or kind in LOGGED_ELSEWHERE):  # the whole log
            out.extend(r for r in self.chat_log.all_records() if matches(r, study, participant, kind))
        return out

    def changes(self, cursor=None):
        """Records stored since `cursor`. Only the shards the journal names are re-read,
        and from each only the positions its lines name (see _apply)."""
        chats, chat_offset = self.chat_log.changes(cursor.chat_offset if isinstance(cursor, JournalCursor) else 0)
        new, cursor = self._shard_changes(cursor)
        return new + chats, replace(cursor, chat_offset=chat_offset)

    def _shard_changes(self, cursor) -> tuple[list[dict], JournalCursor]:
        if not isinstance(cursor, JournalCursor):
            return self._changes_by_scan({})
        journal, size = self.journal.position()
        if journal != cursor.journal or cursor.offset > size:  # the journal was lost: scan
            return self._changes_by_scan(cursor.seen)
        entries, offset = self.journal.read_from(cursor.offset)
        if not entries:
            return [], JournalCursor(journal, offset, cursor.seen)
        seen = dict(cursor.seen)
        return self._apply(entries, seen), JournalCursor(journal, offset, seen)

    def _apply(self, entries: list[tuple[str, str, int]], seen: dict) -> list[dict]:
        """Positions, not lengths: `a x 7` means record 7 of shard x is new, whatever the
        file holds by the time it is read — so a purge and re-append racing with the
        reader reports nothing twice."""
        spans: dict[str, list[int]] = {}
        for op, name, count in entries:
            if op == "p":
                seen[name] = 0  # the records before it are gone
                spans.pop(name, None)
                continue
            lo = seen.get(name, 0)
            span = spans.setdefault(name, [lo, lo])
            span[1] = max(span[1], count)
        new: list[dict] = []
        for name, (lo, hi) in spans.items():
            if hi > lo and PARTICIPANT_NAME.match(name):
                new.extend(copy_record(r) for r in self._read_shard(name)[lo:hi])
            seen[name] = max(lo, hi)
        return new

    def _changes_by_scan(self, seen: dict) -> tuple[list[dict], JournalCursor]:
        journal, offset = self.journal.position()  # first: lines written during the scan are read next time
        seen = dict(seen)
        new: list[dict] = []
        for name in self._shard_names():
            recs = self._read_shard(name)
            start = seen.get(name, 0)
            if len(recs) < start:  # purged since: start again
                start = 0
            seen[name] = len(recs)
            new.extend(copy_record(r) for r in recs[start:])
        return new, JournalCursor(journal, offset, seen)

    def summaries(self, study: str, cls=ParticipantSummary) -> dict:
        """{participant: funnel facts} of one study from the summary files (infact.stores.tinydb.summaries)."""
        return read_all(self, study, cls)

    def summaries_since(self, study: str, cls=ParticipantSummary) -> tuple[dict, JournalCursor]:
        """`summaries`, and a `changes()` cursor that continues after what they cover (records
        stored meanwhile may be handed over again: the summaries' consumers fold idempotently)."""
        journal, offset = self.journal.position()  # first: what is written while reading comes next time
        out, seen, chat_offset = read_counted(self, study, cls)
        return out, JournalCursor(journal, offset, seen, chat_offset)

    def problems(self) -> list[dict]:
        """Files set aside because they could not be read (see infact.stores.tinydb.files)."""
        return quarantined(self.quarantine)

    def close(self) -> None:
        self._cache.clear()

    # -- platform ID index -------------------------------------------------
    def _index_path(self, study: str, pid: str) -> Path:
        digest = hashlib.sha256(f"{study}\0{pid}".encode()).hexdigest()[:40]
        return self.index / f"{digest}.json"

    def _indexed_participant(self, path: Path) -> str | None:
        try:
            return json.loads(path.read_text(encoding="utf-8")).get("participant")
        except (OSError, ValueError, AttributeError):
            return None

    def _arrival_of(self, participant: str | None, study: str, pid: str) -> dict | None:
        if not participant or not PARTICIPANT_NAME.match(participant):
            return None
        return next(
            (r for r in self._read_shard(participant) if r.get("study") == study and indexed_arrival(r) == pid), None
        )

    def _index_arrival(self, study: str, pid: str, participant: str) -> None:
        """Point (study, pid) at `participant` unless it points at a real arrival already."""
        path = self._index_path(study, pid)
        with self._striped("i", path.name):
            current = self._indexed_participant(path)
            if current == participant or self._arrival_of(current, study, pid) is not None:
                return
            atomic_write_text(path, json.dumps({"study": study, "platform_id": pid, "participant": participant}))

    def arrival_by_platform_id(self, study: str, platform_id: str) -> dict | None:
        """The first stored (non-preview) arrival with this platform ID, letter case ignored."""
        pid = platform_key(platform_id)
        if pid is None:
            return None
        if not (self.index / INDEX_BUILT).exists():
            self._build_index()
        found = self._arrival_of(self._indexed_participant(self._index_path(study, pid)), study, pid)
        return copy_record(found) if found is not None else None

    def _build_index(self) -> None:
        """Once per store made before the index existed: index every stored arrival.
        Entries are hints checked against the arrival, so they are written without an
        fsync each (10,000 fsyncs take minutes); the marker comes last, after one sync."""
        with self.lock():
            if (self.index / INDEX_BUILT).exists():
                return
            for rec in self.records(kind="arrival"):
                pid = indexed_arrival(rec)
                if pid is None:
                    continue
                path = self._index_path(str(rec["study"]), pid)
                with self._striped("i", path.name):
                    if self._arrival_of(self._indexed_participant(path), str(rec["study"]), pid) is None:
                        tmp = path.with_name(f".{path.name}.build.tmp")
                        tmp.write_text(
                            json.dumps({"study": rec["study"], "platform_id": pid, "participant": rec["participant"]}),
                            encoding="utf-8",
                        )
                        os.replace(tmp, path)
            os.sync()
            self._mark_index_built()

    def _mark_index_built(self) -> None:
        with self._striped("i", INDEX_BUILT):  # every temp file is written under its file's lock
            atomic_write_text(self.index / INDEX_BUILT, "every arrival stored before this file is indexed\n")
