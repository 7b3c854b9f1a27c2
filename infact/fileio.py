"""Atomic file writes: write a temporary sibling, fsync, rename over the target.

A crash at any moment leaves either the old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # some filesystems refuse directory handles
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give files the usual mode
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


def replace_dir(staging: Path, target: Path) -> None:
    """Move a fully written staging directory into place as `target`.

    An existing target is moved aside first and removed only once the new one is
    in place, so a failure never leaves the researcher without a study folder.
    """
    target = Path(target)
    backup = None
    if target.exists():
        backup = target.with_name(f".{target.name}.old-{os.getpid()}")
        if backup.exists():
            shutil.rmtree(backup)
        os.replace(target, backup)
    try:
        os.replace(staging, target)
    except BaseException:
        if backup is not None:
            os.replace(backup, target)
        raise
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
    fsync_dir(target.parent)


MANIFEST = ".infact-export.json"  # what `export` wrote into a folder: the files it may replace next time
PLACEHOLDERS = frozenset({".gitkeep", ".keep"})  # what a repository keeps in an empty folder: never touched


def swap_in(folder: str | os.PathLike, files: dict[str, bytes], *, remove: Iterable[str] = ()) -> list[Path]:
    """Write `files` (paths relative to `folder`, subfolders allowed) as one set and touch nothing else.

    Everything is written into a staging folder beside `folder` first; only then is each file moved into
    place, the version it replaces moved aside. A failure at any point (a full disk, a permission) puts
    every earlier version back, so `folder` holds the old set or the new one, never a mix; a process
    killed during the moves (milliseconds) leaves the earlier versions in the hidden staging folder.
    `remove` names earlier files of the same writer that the new set no longer has. Files of `folder`
    not named here are never read or moved.
    """
    from infact.errors import InfactError, Problem

    folder = Path(folder)
    names = [_relative(name, folder) for name in files]
    gone = [_relative(name, folder) for name in remove if name not in files and (folder / name).is_file()]
    if folder.exists() and not folder.is_dir():
        raise InfactError(Problem(str(folder), "exists and is not a folder: choose another output folder"))
    staging, created = None, not folder.exists()
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.staging-", dir=folder.parent))
        for name, data in zip(names, files.values(), strict=True):
            atomic_write_bytes(staging / "new" / name, data)
        folder.mkdir(exist_ok=True)
        _move_in(folder, staging, names, gone)
    except OSError as exc:
        if created and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        where = exc.filename if exc.filename and staging is None else folder
        raise InfactError(
            Problem(
                str(where),
                f"nothing written ({exc.strerror or exc}): check the path, the permissions and "
                "the free disk space; the files there are unchanged",
            )
        ) from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return [folder / name for name in names]


def _relative(name: str, folder: Path) -> str:
    from infact.errors import InfactError, Problem

    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or ".." in parts:
        raise InfactError(Problem(str(folder), f"{name!r} is not a file name inside the folder"))
    return str(Path(*parts))


def _move_in(folder: Path, staging: Path, names: list[str], gone: list[str]) -> None:
    """Move every staged file into `folder` (old versions aside into staging/old), or undo all of it."""
    moved: list[tuple[str, bool, bool]] = []  # (name, had an old version, new one moved in)
    try:
        for name in [*gone, *names]:
            target, old = folder / name, staging / "old" / name
            had = target.exists() or target.is_symlink()
            if had:
                old.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, old)
            moved.append((name, had, False))
            if name in gone:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / "new" / name, target)
            moved[-1] = (name, had, True)
    except BaseException:
        for name, had, new in reversed(moved):
            if new:
                os.unlink(folder / name)
            if had:
                os.replace(staging / "old" / name, folder / name)
        raise
    for parent in {(folder / name).parent for name in names}:
        fsync_dir(parent)


def export_folder_check(folder: Path, files: Iterable[str], legacy: Iterable[str], *, force: bool) -> tuple[set, list]:
    """(the names an earlier export wrote here, the files `force` replaces) for an export into `folder`.

    "Its own files" are the names in the folder's MANIFEST, written with every export. A folder without
    one counts as an earlier export's only when every file in it has an export's name (`legacy`).
    Anything else, hidden files included, is refused unless `force`: then files named like the export's
    are replaced (and listed) and the others are left untouched.
    """
    from infact.errors import InfactError, Problem

    if not folder.is_dir():
        return set(), []
    present = {p.name for p in folder.iterdir()} - PLACEHOLDERS - {MANIFEST}
    ours = _manifest(folder)
    if ours is None:
        ours = present if present <= set(legacy) else set()
    others = sorted(present - ours)
    if others and not force:
        shown = ", ".join(others[:4]) + (", …" if len(others) > 4 else "")
        raise InfactError(
            Problem(
                str(folder),
                f"holds {len(others)} file(s) an export did not write ({shown}): give the export a folder of "
                "its own, or pass --force to write beside them (files with an export's name are then replaced, "
                "the others are left as they are)",
            )
        )
    return ours, sorted(set(others) & set(files))


def _manifest(folder: Path) -> set[str] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return set()  # unreadable: nothing is known to be ours
    names = data.get("files") if isinstance(data, dict) else None
    # an export never writes hidden files or subfolders: a manifest naming one is not trusted for it
    own = (
        {n for n in names if isinstance(n, str) and "/" not in n and not n.startswith(".")}
        if isinstance(names, list)
        else set()
    )
    return own


def write_export_folder(
    folder: str | os.PathLike, files: dict[str, bytes], *, legacy: Iterable[str] = (), force: bool = False
) -> tuple[list[Path], list[str]]:
    """Write an export's files into `folder` as one set (`swap_in`) with its MANIFEST; returns the paths
    written and the names of files it did not write that `force` replaced. Files an earlier export wrote
    that this one has not are removed; nothing else in the folder is touched."""
    folder = Path(folder)
    ours, replaced = export_folder_check(folder, files, legacy, force=force)
    manifest = {"written_by": "infact export", "files": sorted(files)}
    data = {**files, MANIFEST: (json.dumps(manifest, indent=1) + "\n").encode("utf-8")}
    written = swap_in(folder, data, remove=sorted(ours - set(files)))
    return [p for p in written if p.name != MANIFEST], replaced


MAX_INPUT_BYTES = 512 * 1024 * 1024  # far above ReDial's full train split (~30 MB); refuses runaway inputs


def read_input_text(path: str | os.PathLike, *, encoding: str = "utf-8-sig", max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a researcher's input file as text, or raise DatasetError naming the file and the fix.

    Only regular files are read: a directory, a device such as /dev/zero or a FIFO
    would otherwise fail obscurely or hang.
    """
    from infact.errors import DatasetError, Problem

    path = Path(path)
    name = str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise DatasetError(Problem(name, "file not found: check the path")) from None
    except OSError as exc:
        raise DatasetError(Problem(name, f"cannot read: {exc.strerror}")) from None
    if stat.S_ISDIR(info.st_mode):
        raise DatasetError(Problem(name, "is a directory: give the data file itself"))
    if not stat.S_ISREG(info.st_mode):
        raise DatasetError(Problem(name, "is not a regular file (a device, pipe or socket): give a data file"))
    if info.st_size > max_bytes:
        raise DatasetError(
            Problem(
                name,
                f"is {info.st_size / 2**20:,.0f} MB, more than the {max_bytes / 2**20:,.0f} MB "
                "an input file may have: split it into several files",
            )
        )
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise DatasetError(
            Problem(name, f"not UTF-8 text ({exc.reason} at byte {exc.start}): save the file as UTF-8")
        ) from None
    except OSError as exc:
        raise DatasetError(Problem(name, f"cannot read: {exc.strerror}")) from None


def loads_json(text: str) -> Any:
    """json.loads that reports absurd nesting as a JSONDecodeError instead of a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(_TOO_DEEP, text, 0) from None


_TOO_DEEP = "nested too deeply (more than about 1,000 levels of [ or {)"


class NonFinite:
    """Where a JSON file wrote NaN, Infinity or a number too large for a float (1e999): never a number,
    so every `isinstance(v, numbers.Real)` check refuses it; `str()` is the literal as written."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _float(text: str) -> float | NonFinite:
    value = float(text)
    return value if math.isfinite(value) else NonFinite(text)


_SPACE = re.compile(r"[ \t\n\r]*")


def json_entries(text: str) -> list[tuple[int, Any]] | None:
    """A JSON list's entries, each with the line it starts on; None when the text holds valid JSON that is
    not a list. NaN, Infinity and 1e999 become NonFinite; invalid JSON and absurd nesting raise
    JSONDecodeError (with its line), never a RecursionError."""
    decoder = json.JSONDecoder(parse_float=_float, parse_constant=NonFinite)
    i = _SPACE.match(text).end()
    if not text.startswith("[", i):
        try:
            decoder.decode(text)
        except RecursionError:
            raise json.JSONDecodeError(_TOO_DEEP, text, i) from None
        return None
    entries: list[tuple[int, Any]] = []
    line, counted = 1, 0
    i = _SPACE.match(text, i + 1).end()
    if text.startswith("]", i):
        i += 1
    else:
        while True:
            line += text.count("\n", counted, i)
            counted = i
            try:
                obj, i = decoder.raw_decode(text, i)
            except RecursionError:
                raise json.JSONDecodeError(_TOO_DEEP, text, i) from None
            entries.append((line, obj))
            i = _SPACE.match(text, i).end()
            if text.startswith("]", i):
                i += 1
                break
            if not text.startswith(",", i):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
            i = _SPACE.match(text, i + 1).end()
    if _SPACE.match(text, i).end() != len(text):
        raise json.JSONDecodeError("Extra data", text, i)
    return entries


def non_finite(obj: Any, where: str = "") -> str | None:
    """The path of the first NonFinite value in a decoded entry (`turns[2].score`), or None."""
    stack = [(obj, where)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, NonFinite):
            return f"{path or 'a value'} = {value.text}"
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{n}]") for n, v in reversed(list(enumerate(value))))
    return None
