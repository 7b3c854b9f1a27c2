"""Atomic file writes: write a temporary sibling, fsync, rename over the target.

A crash at any moment leaves either the old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
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


def write_file_set(folder: str | os.PathLike, files: dict[str, bytes], *, ours: Iterable[str] = ()) -> list[Path]:
    """Write files as one set: into a staging folder beside `folder`, which then replaces it.

    A failure part-way (a full disk) leaves the previous set untouched and no mix of
    old and new files. `folder` may hold only files of the set (`files` and `ours`,
    e.g. names an earlier version wrote): anything else is refused, never deleted.
    """
    from infact.errors import InfactError, Problem

    folder = Path(folder)
    known = set(files) | set(ours)
    if folder.exists() and not folder.is_dir():
        raise InfactError(Problem(str(folder), "exists and is not a folder: choose another output folder"))
    others = (
        sorted(p.name for p in folder.iterdir() if p.name not in known and not p.name.startswith("."))
        if folder.is_dir()
        else []
    )
    if others:
        raise InfactError(
            Problem(
                str(folder),
                f"holds other files ({', '.join(others[:3])}{', …' if len(others) > 3 else ''}); "
                "the export replaces the whole folder, so give it a folder of its own",
            )
        )
    staging = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.staging-", dir=folder.parent))
        for name, data in files.items():
            atomic_write_bytes(staging / name, data)
        os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes it 0700
        replace_dir(staging, folder)
    except OSError as exc:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        where = exc.filename if exc.filename and staging is None else folder
        raise InfactError(
            Problem(
                str(where),
                f"nothing written ({exc.strerror or exc}): check the path, the permissions and "
                "the free disk space; a previous export there is unchanged",
            )
        ) from None
    return [folder / name for name in files]


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
        raise json.JSONDecodeError("nested too deeply (more than about 1,000 levels of [ or {)", text, 0) from None
