"""Live chats (docs/live.md): per-system satisfaction, latency and failures, then simulated participants apart."""

from __future__ import annotations

import streamlit as st

from infact.ui.dashboard.registry import section


@section("Live chats", tables=True)
def show_live_chats(view) -> None:
    from infact.results.live.analysis import render_markdown as live_markdown
    from infact.results.live.simulated import render_markdown as simulated_markdown

    st.markdown(live_markdown(view.live()))
    simulated = view.simulated()
    if simulated is not None:  # apart: simulated participants are left out of every figure above
        st.divider()
        st.markdown(simulated_markdown(simulated))
