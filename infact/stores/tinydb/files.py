"""The files of the TinyDB store: the shards, read and appended through TinyDB's own API (`Table` over a
storage that replaces its file atomically), a change journal, a quarantine for damaged shards, and the
clean-up of what killed writers leave behind.

TinyDB's `Table` costs an append about 17 µs of CPU more than writing its layout by hand did (20-record
shard, file I/O left out), about 1% of a save (bench/storage.py: medians 1.5-2.7 ms, the fsyncs); a
shard read is faster than before (orjson: 90 µs instead of 125 µs for 20 records).

- `journal.log`: a first line with the journal's random id (`# journal <id>`: a journal begun again is
  another one, whatever its inode), then one line per write (`a <shard> <n>`: the shard now holds n records;
  `p <shard>`: purged), added with O_APPEND after the shard is in place. `changes()` reads it from where it stopped,
  so it re-reads only the shards that changed instead of stat'ing every file. The
  journal is a hint, not the data: a reader that starts from nothing scans the shards.
- `quarantine/`: a shard that cannot be read (not UTF-8, not JSON, not TinyDB's shape)
  is moved here with a note saying why, never deleted, and the store goes on without it.
- `ShardCache`: parsed shards kept in memory, bounded.
- Temporary files (`.<name>.<random>.tmp`, see infact.fileio) of writers killed
  mid-write are removed when a store is opened, once their file's lock shows no live
  writer owns them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path

import orjson
from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage as TinyStorage

from infact.fileio import atomic_write_bytes, atomic_write_text

log = logging.getLogger(__name__)


class DamagedShard(Exception):
    """A shard file whose content INFACT did not write."""


class AtomicJSONStorage(TinyStorage):
    """TinyDB storage of one file: TinyDB's JSON, read with orjson and replaced atomically (temporary file,
    fsync, rename): a crash mid-write leaves the previous complete file. The layout inside
    (`{"_default": {"1": {record}, …}}`) is TinyDB's own: the store reads and appends through TinyDB's `Table`."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def read(self) -> dict | None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None  # a new shard: TinyDB starts it empty
        if not data.strip():
            return None
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:  # NaN, an integer beyond 64 bits…: the standard library reads them
            return json.loads(data.decode("utf-8"))

    def write(self, data: dict) -> None:
        try:
            text = orjson.dumps(data)
        except (TypeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits: the standard library takes it
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        atomic_write_bytes(self.path, text)


class WriteThrough(CachingMiddleware):
    """TinyDB's CachingMiddleware writing on every write (nothing waits in a cache when the process dies), its
    cache started from `known`: what the caller holds of the file as it is now (its lock held, its signature
    checked), so an insert parses nothing again — TinyDB's own `insert` re-reads the file twice."""

    WRITE_CACHE_SIZE = 1

    def __init__(self, storage_cls: type[TinyStorage], known: dict | None = None) -> None:
        super().__init__(storage_cls)
        self.cache = dict(known) if known is not None else None  # TinyDB replaces the table in this dict


def records_of(data: dict | None) -> list[dict]:
    """The records in TinyDB's data of a shard (what `read_shard` and `append_to_shard` return), in file order."""
    return list(data[TinyDB.default_table_name].values()) if data else []


def read_shard(path: Path) -> tuple[list[dict], dict | None]:
    """The records of one shard file in insertion order and TinyDB's data they are in (to pass to
    `append_to_shard` as `known`); DamagedShard if TinyDB cannot read it as a table of records."""
    storage = WriteThrough(AtomicJSONStorage)
    try:
        TinyDB(path, storage=storage).all()  # TinyDB's own reading: a file it cannot take as a table fails here
    except UnicodeDecodeError as exc:
        raise DamagedShard(f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise DamagedShard(f"is not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    except RecursionError as exc:
        raise DamagedShard("is nested too deeply to be a record file") from exc
    except (TypeError, ValueError, AttributeError) as exc:  # what TinyDB's Table raises on another shape
        raise DamagedShard('does not have the shape TinyDB writes ({"_default": {"1": {record}, …}})') from exc
    return records_of(storage.cache), storage.cache


def append_to_shard(path: Path, record: dict, known: dict | None) -> dict:
    """Insert `record` into a shard through TinyDB and return the data now in the file. The caller holds the
    shard's lock and passes what the file holds (`known`, from `read_shard` or the last append): TinyDB writes it
    plus the record (temp file, fsync, rename, directory fsync) without re-reading and re-parsing the file, the
    participant page's main storage cost before (bench/burst.py)."""
    storage = WriteThrough(AtomicJSONStorage, known)
    TinyDB(path, storage=storage).insert(record)
    return storage.cache


def quarantine(path: Path, folder: Path, reason: str) -> Path:
    """Move a damaged file into `folder` under a new name, with a note on why."""
    folder.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.stem}.{stamp}{path.suffix}"
    os.replace(path, target)
    note = {"file": path.name, "moved_to": target.name, "reason": f"{path.name} {reason}", "at": stamp}
    atomic_write_text(target.with_name(target.name + ".why.json"), json.dumps(note))
    log.warning("INFACT store: %s %s; moved to %s", path, reason, target)
    return target


def quarantined(folder: Path) -> list[dict]:
    """What `quarantine` set aside, oldest first (for the dashboard)."""
    out = []
    for note in sorted(folder.glob("*.why.json")) if folder.is_dir() else []:
        try:
            info = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = {"file": note.name[: -len(".why.json")], "reason": "set aside (its note is unreadable)"}
        out.append({**info, "moved_to": str(folder / info.get("moved_to", note.name[: -len(".why.json")]))})
    return sorted(out, key=lambda p: str(p.get("at", "")))


def orphan_target(tmp: Path) -> str | None:
    """`.p1.json.abc123.tmp` -> `p1.json` (the file its writer was replacing)."""
    name = tmp.name
    if not (name.startswith(".") and name.endswith(".tmp")):
        return None
    base = name[1:-4].rsplit(".", 1)[0]
    return base or None


HEADER = "# journal "  # the journal's first line: "# journal <random id>" (readers skip it: not an entry)


class Journal:
    """The append-only change journal (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, op: str, shard: str, count: int = 0) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except FileNotFoundError:
            self._begin()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, f"{op} {shard} {count}\n".encode())  # one small write: never interleaved
        finally:
            os.close(fd)

    def _begin(self) -> None:
        """A new journal, its first line a random id — linked into place whole, so no other process's entry
        can come before the id, and a process that lost the race simply appends to the winner's."""
        tmp = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(f"{HEADER}{uuid.uuid4().hex}\n".encode())
        try:
            os.link(tmp, self.path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)

    def position(self) -> tuple[tuple, int]:
        """(which journal, its size): a journal deleted and begun again is another one. The file system's
        inode alone does not say so (a deleted file's inode is often reused at once), so the id on its first
        line is part of it (journals written before it had one: inode only)."""
        try:
            with open(self.path, "rb") as fh:
                st = os.fstat(fh.fileno())
                first = fh.readline(80)
        except FileNotFoundError:
            return (), 0
        ident = first[len(HEADER) :].strip().decode("ascii", "replace") if first.startswith(HEADER.encode()) else ""
        return (st.st_dev, st.st_ino, ident), st.st_size

    def read_from(self, offset: int) -> tuple[list[tuple[str, str, int]], int]:
        """Complete lines after `offset` as (op, shard, count), and the offset after them."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(offset)
                data = fh.read()
        except FileNotFoundError:
            return [], offset
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        entries = []
        for line in data[:end].decode("utf-8", "replace").splitlines():
            parts = line.split(" ")
            if len(parts) == 3 and parts[0] in ("a", "p") and parts[2].isdigit():
                entries.append((parts[0], parts[1], int(parts[2])))
        return entries, offset + end


class ShardCache:
    """shard -> (file signature, records, TinyDB's data they came from), least recently used dropped beyond
    `limit`: a full read of a big study must not keep every participant's records in memory. The records are the
    data's own objects (`records_of`): the data costs one dict per shard more."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: OrderedDict[str, tuple[tuple, list[dict], dict | None]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, shard: str, sig: tuple) -> tuple[list[dict], dict | None] | None:
        """(records, data) of the shard if its file still has signature `sig`."""
        with self._lock:
            item = self._items.get(shard)
            if item is None or item[0] != sig:
                return None
            self._items.move_to_end(shard)
            return item[1], item[2]

    def put(self, shard: str, sig: tuple, records: list[dict], data: dict | None) -> None:
        with self._lock:
            self._items[shard] = (sig, records, data)
            self._items.move_to_end(shard)
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def pop(self, shard: str) -> None:
        with self._lock:
            self._items.pop(shard, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
