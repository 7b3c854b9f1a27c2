"""The section a kind gets by default (`Kind.dashboard`, infact/kinds/): its table and how many rows."""

from __future__ import annotations

import streamlit as st

from infact.text.neutral import visible_frame


def show_kind(view, kind: str) -> None:
    from infact.participation import steps

    name = f"{steps.get(kind).table}.csv"
    df = view.table(name, criterion=False)
    if df.empty:
        st.info(f"No {kind} answers yet.")
        return
    people = df["participant"].nunique() if "participant" in df.columns else 0
    st.caption(f"{len(df)} rows of `{name}` from {people} participants (the same table as in Exports).")
    st.dataframe(visible_frame(df), hide_index=True, key=f"kind_{kind}_table")  # participants' text, controls shown
