"""Exports: every table of the study as a download, made when clicked (infact/ui/downloads.py)."""

from __future__ import annotations

import streamlit as st

from infact.results.export import describe
from infact.ui.dashboard.registry import section
from infact.ui.downloads import researcher_download


# Outside the 5-second fragment: each rerun gives a deferred download a new id, and a click holding the old
# one would fail (infact/ui/downloads.py); the files are made fresh at the click.
@section("Exports", refresh=False, tables=True)
def show_exports(view) -> None:
    st.caption(
        "Each file is made when you click and its link stops working within a minute: download again for newer data."
    )
    for name in view.export_files()[0]:
        researcher_download(
            f"{name} — {describe(name)}",
            lambda name=name: view.export_files()[0][name],
            file_name=name,
            key=f"dl-{name}",
        )
    if empty := view.export_files()[1]:
        st.caption("Offered once they have a row: " + ", ".join(f"`{n}`" for n in empty) + ".")
