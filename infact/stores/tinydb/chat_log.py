"""The TinyDB store's chat log: one append-only file for the records of live chats, group-committed.

Why: fifty participants chatting at once store a record per message at the same
moments. A TinyDB shard rewrites its whole file per insert (temporary file, fsync,
rename, directory fsync: ~9 ms here), and a hundred of those at once queued for the
disk — most of the live step's overhead in bench/live.py. Here concurrent appends are
written together: one `write()` and one `fdatasync` per batch, whoever arrives while a
batch is being synced goes in the next one, and each caller returns only once its own
record is on disk (group commit, as databases do for their write-ahead log).

`chats.jsonl`, UTF-8, one JSON object per line, each ending in "\\n":
- a record (it has a "key"): the records of one conversation, `LOG_KINDS`, and every record of
  the names in `LOG_NAMES` (the visits to the study page);
- `{"purged": "<participant>"}`: that participant's earlier lines were blanked (see `purge`).

Writers of every process take `chats.lock` (an OS lock the kernel releases if a process
dies) around catching up with the file, refusing keys already stored, appending and
syncing, so keys stay unique across processes. A writer killed mid-write leaves at most a
torn last line (no "\\n", or not JSON): it was never acknowledged, readers skip it, and the
next batch first ends it with "\\n". Readers stop at the last "\\n": a line still being
written is read next time.

Memory: the index keeps, per participant, the offset, length and key of each line, not
the records; a participant's records are read back with one `pread` per line.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import orjson
from filelock import FileLock

from infact.fileio import fsync_dir
from infact.stores.group_commit import GroupCommit

log = logging.getLogger(__name__)

# The records of one conversation (infact.chat.conversation.CHAT_KINDS; a test keeps them equal).
# Assignments and votes are few per participant and read across participants: they stay in shards.
LOG_KINDS = frozenset({"chat_message", "chat_turn_rating", "chat_end", "chat_rubric"})
# Names whose every record is logged here too: `_visits` (infact.participation.visits), one line per
# visit instead of a whole-shard rewrite, and no file per visit.
LOG_NAMES = frozenset({"_visits"})
LOGGED_ELSEWHERE = frozenset({"visit"})  # kinds of LOG_NAMES records: a query for them reads the log as well


def in_log(record: dict) -> bool:
    """Whether the TinyDB store keeps this record in the log (else in its participant's shard)."""
    return record.get("kind") in LOG_KINDS or record.get("participant") in LOG_NAMES


def encode(record: dict) -> bytes:
    # json, as TinyDB writes: the same numbers and strings as in a shard.
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict | None:
    """One line's object; None for a blank, torn or foreign line."""
    if not line.strip():
        return None
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:  # what orjson refuses and json reads (integers beyond 64 bits, NaN)
            obj = json.loads(line)
        except ValueError:
            return None
    return obj if isinstance(obj, dict) else None


class ChatLog:
    def __init__(self, path: Path, lock_path: Path) -> None:
        self.path = path
        self._file_lock = FileLock(str(lock_path), poll_interval=0.001, thread_local=False)
        self._index: dict[str, list[tuple[int, int, str]]] = {}  # participant -> (offset, length, key)
        self._file: tuple = ()  # (st_dev, st_ino) the index was built from
        self._offset = 0  # bytes of the file indexed so far
        self._index_lock = threading.Lock()
        # A FileLock made with thread_local=False is reentrant across threads: this makes it exclusive.
        self._write_lock = threading.Lock()
        self._group = GroupCommit(self._commit)

    # -- reading ---------------------------------------------------------------
    def _catch_up(self) -> None:
        """Index the lines other writers (or this one) appended since the last call. Holds _index_lock."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            st = None
        ident = (st.st_dev, st.st_ino) if st else ()
        if ident != self._file:  # created, or replaced by hand: start again
            self._index, self._file, self._offset = {}, ident, 0
        if st is None or st.st_size <= self._offset:
            return
        with open(self.path, "rb") as fh:
            fh.seek(self._offset)
            data = fh.read(st.st_size - self._offset)
        end = data.rfind(b"\n") + 1
        pos = 0
        while pos < end:
            nl = data.index(b"\n", pos) + 1
            self._index_line(self._offset + pos, data[pos:nl])
            pos = nl
        self._offset += end

    def _index_line(self, offset: int, line: bytes) -> None:
        obj = decode(line)
        if obj is None:
            if line.strip():
                log.warning(
                    "INFACT store: %s has a torn line at byte %d (a writer killed mid-write; it was "
                    "never acknowledged): skipped",
                    self.path,
                    offset,
                )
        elif "purged" in obj and "key" not in obj:
            self._index.pop(str(obj["purged"]), None)
        elif "key" in obj:
            self._index.setdefault(str(obj.get("participant")), []).append((offset, len(line), obj["key"]))

    def records(self, participant: str) -> list[dict]:
        """One participant's records, in the order they were stored."""
        with self._index_lock:
            self._catch_up()
            lines = list(self._index.get(participant, ()))
        if not lines:
            return []
        out = []
        fd = os.open(self.path, os.O_RDONLY)
        try:
            for offset, length, _ in lines:
                rec = decode(os.pread(fd, length, offset))
                if rec is not None and rec.get("participant") == participant:  # blanked by a purge since
                    out.append(rec)
        finally:
            os.close(fd)
        return out

    def changes(self, offset: int) -> tuple[list[dict], int]:
        """The records of the lines after byte `offset`, and the offset after them (all of them: offset 0)."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(offset)
                data = fh.read()
        except FileNotFoundError:
            return [], 0
        end = data.rfind(b"\n") + 1
        new = [obj for obj in map(decode, data[:end].split(b"\n")) if obj is not None and "key" in obj]
        return new, offset + end

    def all_records(self) -> list[dict]:
        return self.changes(0)[0]

    # -- writing ---------------------------------------------------------------
    def append(self, record: dict) -> bool:
        """Store `record` durably; False if its key is stored already. Returns once it is on disk."""
        return self.append_many([record])[0]

    def append_many(self, records: list[dict]) -> list[bool]:
        """Store records in this order (never a later one without the earlier ones), usually in one sync."""
        return self._group.submit(records)

    def _commit(self, batch: list[dict]) -> list[bool]:
        """One batch of concurrent appends (infact.stores.group_commit): one write and one sync."""
        stored = [False] * len(batch)
        with self._write_lock, self._file_lock:
            with self._index_lock:
                self._catch_up()  # what other processes stored decides which keys are new
                data = bytearray()
                taken = set()
                for i, record in enumerate(batch):
                    who, key = str(record.get("participant")), record["key"]
                    if key in taken or any(k == key for _, _, k in self._index.get(who, ())):
                        continue
                    taken.add(key)
                    stored[i] = True
                    data += encode(record)
            if data:  # readers are not held up by the sync; the writers of the batch are
                self._write(bytes(data))
        return stored

    def _write(self, data: bytes) -> None:
        """Append and sync; the caller holds the file lock."""
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # end a killed writer's torn line first
            view = memoryview(data)
            while view:  # a regular file takes it in one write unless the disk is full
                view = view[os.write(fd, view) :]
            os.fdatasync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.path.parent)  # the new file's name is durable too

    def purge(self, participant: str) -> int:
        """Blank a participant's lines in place (spaces, same length: everyone's offsets stay
        valid), then add a `purged` line so other processes drop them from their index."""
        with self._write_lock, self._file_lock, self._index_lock:
            self._catch_up()
            lines = self._index.get(participant, [])
            if not lines:
                return 0
            fd = os.open(self.path, os.O_RDWR)
            try:
                for offset, length, _ in lines:
                    os.pwrite(fd, b" " * (length - 1), offset)
                os.fdatasync(fd)
            finally:
                os.close(fd)
            self._write(encode({"purged": participant}))
            self._catch_up()
            return len(lines)
