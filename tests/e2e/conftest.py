"""Real-browser fixtures: one `streamlit run` server per test module (or per study: `shared_server`), one Chromium
per session.

The helpers these fixtures use and the tests call (start_server, wait_idle, consent, ...) are in
simulations/browser.py, which also says how servers are started and how the tests wait.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulations.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DEVICES,
    TIMEOUT_MS,
    require_chromium,
    start_server,
    stop_server,
)


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """One Streamlit server per test module; `.url` is the base URL."""
    require_chromium()
    server = start_server(tmp_path_factory.mktemp("e2e-app"))
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory):
    """`shared_server(name, make_study)`: one server per study name for the whole session (this xdist worker),
    started on first use, so test files on one study share it. Only for tests that read, or that each make
    their own participant (own browser context); a test that needs a fresh server (first visitor, counts
    from zero, files on disk before start) keeps its own. `make_study(workdir)` returns the study folder."""
    servers: dict = {}

    def get(name: str, make_study):
        if name not in servers:
            require_chromium()
            work = tmp_path_factory.mktemp(f"e2e-shared-{name}")
            servers[name] = start_server(work / "app", make_study(work))
        return servers[name]

    yield get
    for server in servers.values():
        stop_server(server)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright's sync API (overrides pytest-playwright's)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page(browser):
    """A fresh browser context (no shared cookies or storage) per test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(params=list(DEVICES))
def device(request) -> str:
    return request.param


@pytest.fixture
def device_context(browser, device):
    """A fresh browser context (own cookies) with the device's window size."""
    context = browser.new_context(**DEVICES[device], accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def device_page(device_context):
    return device_context.new_page()
