"""Atomic file writes: write a temporary sibling, fsync, rename over the target.

A crash at any moment leaves either the old file or the new one, never a mix.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


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
