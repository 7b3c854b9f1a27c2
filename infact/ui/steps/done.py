"""The last page: the completion (or participant) code, the return link, or the withdrawal note."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _
from infact.text.display import return_link_html
from infact.ui.participant_page import start_over_button


def page(flow: Flow, progress: Progress, step: Step) -> None:
    texts = flow.cfg.texts
    state = progress.state
    if state.withdrawn is not None:
        st.info(_(texts.withdrawn))
        return
    completion = flow.completion(state)
    if completion is None:  # every step stored, the completion not: the process that stored them died
        state = flow.finish_pending(state)
        completion = flow.completion(state)
    if completion is None:  # never show a code early
        st.warning(_("Saving your answers… please reload the page."))
        return
    screened_out = state.complete.get("outcome") == "screened_out"
    if screened_out:
        st.warning(_(texts.screened_out))
    else:
        st.success(_("All your answers are saved."))
        st.markdown(_(texts.completion))
    if completion.code:
        st.markdown(_("**Your participant code**") if screened_out else _("**Your completion code**"))
        with st.container(key="infact-completion-code"):  # drawn in the text font (display.CSS): "-" not "−"
            st.code(completion.code, language=None)
    st.write(completion.text)
    if completion.redirect_url:  # the page script redirects in this tab; the link is the fallback
        st.html(return_link_html(completion.redirect_url, _("Return to Prolific")))
    if flow.cfg.platform.kind == "none":
        start_over_button(flow, progress)
