"""A draft's files, and writing them into a folder as one set without losing anything that was there."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from infact.errors import ConfigError, Problem
from infact.fileio import swap_in
from infact.study.starter.draft import StudyDraft
from infact.study.starter.render import render_toml


def study_files(draft: StudyDraft) -> dict[str, bytes]:
    """Every file of the draft's folder: study.toml and its data files."""
    return {"study.toml": render_toml(draft).encode("utf-8"), **draft.data}


def checked_files(draft: StudyDraft) -> dict[str, bytes]:
    """`study_files(draft)`, loaded as the app loads them (in a temporary folder) before anything is written:
    a draft that would not run is refused with the loader's problems, and the researcher's folder is untouched."""
    import tempfile

    from infact.study.loader import load_study

    files = study_files(draft)
    with tempfile.TemporaryDirectory(prefix="infact-new-") as tmp:
        folder = Path(tmp) / draft.study_id
        swap_in(folder, files)
        load_study(folder)
    return files


def existing(folder: str | Path, files: dict[str, bytes]) -> list[str]:
    """The names of `files` that `folder` already holds."""
    folder = Path(folder)
    return [name for name in files if (folder / name).exists() or (folder / name).is_symlink()]


def write_study_folder(folder: str | Path, files: dict[str, bytes], *, force: bool = False) -> list[Path]:
    """Write `files` into `folder` as one set; nothing else of the folder is touched.

    A file already there is replaced only with `force`, and then kept beside it as `NAME.bak-<time>`: nothing
    the researcher had is lost. Returns the paths written (the backups included)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(Problem(str(folder), "exists and is not a folder: choose another folder for the study"))
    clash = existing(folder, files)
    if clash and not force:
        raise ConfigError(
            Problem(
                str(folder),
                f"already holds {', '.join(clash)}: choose a new folder, or pass --force to replace "
                "them (each is kept as NAME.bak-<time>; other files are left alone)",
            )
        )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    backups = {f"{name}.bak-{stamp}": (folder / name).read_bytes() for name in clash if (folder / name).is_file()}
    return swap_in(folder, {**backups, **files})
