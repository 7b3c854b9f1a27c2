"""A new study folder from nothing (`infact new DIR [--protocol …] [--from FILE]`), as a library.

`draft_study(protocol, …)` returns a `StudyDraft`, `render_toml(draft)` its commented study.toml,
`study_files(draft)` every file as bytes, and `write_study_folder(folder, files, force=…)` writes them as one
set. The in-app builder and the CLI call the same functions; nothing here prints or parses arguments.

Part of the study layer: imports only the foundations and infact.study's own modules.
"""

from infact.study.starter.draft import PROTOCOLS, StudyDraft, draft_study, protocol_name
from infact.study.starter.files import checked_files, existing, study_files, write_study_folder
from infact.study.starter.render import render_toml

__all__ = [
    "PROTOCOLS",
    "StudyDraft",
    "checked_files",
    "draft_study",
    "existing",
    "protocol_name",
    "render_toml",
    "study_files",
    "write_study_folder",
]
