"""The first visitor after a deploy or reboot is a researcher going straight to /researcher.

Before any session has run streamlit_app.py, Streamlit serves `pages/` the legacy way.
Page files are named after their URL paths, so sign-in still works and the dashboard
still guards itself.
"""

import re

import pytest

from simulations.browser import RESEARCHER_PASSWORD, shot, wait_idle

pytestmark = pytest.mark.e2e


def test_researcher_can_sign_in_as_the_very_first_visitor(app_server, page):
    page.goto(f"{app_server.url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    assert page.get_by_test_id("stSidebarNav").count() == 0  # no legacy page list
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    wait_idle(page)
    shot(page, "fresh-server-dashboard")
    assert page.get_by_text("Please sign in first.").count() == 0
