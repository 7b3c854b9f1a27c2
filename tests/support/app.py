"""Driving the Streamlit app under AppTest (no browser): every widget by its key.

`open_app` runs streamlit_app.py (INFACT_DB and INFACT_STUDY come from the environment, see the
`store` fixture in tests/ui/conftest.py); `give_consent`, `rate`, `submit_situation`, `finish` walk
a participant through the demo study; `token_of`, `html_bodies`, `progress_text`, `view` read what
the participant sees.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from infact.storage import TinyDBStorage
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.studies import copy_study

APP = REPO / "streamlit_app.py"
DEMO = DEMO_STUDY
TIMEOUT = 60  # seconds per run: generous for a loaded 2-core CI machine
CHECK_TEXT = "I am reading this carefully"  # the demo's instructed response
PID = "5f3a9c0e1b2d4c6a8e0f1a2b"  # a 24-hex Prolific id
PROLIFIC_QUERY = {"PROLIFIC_PID": PID, "STUDY_ID": "6a1b2c3d4e5f6a7b8c9d0e1f", "SESSION_ID": "7b2c3d4e5f6a7b8c9d0e1f2a"}
COMPLETION_CODE = "C1TEST23"
SCREENOUT_CODE = "SCREEN01"
PASSWORD = "apptest-researcher-pw"


def study_copy(tmp_path: Path, monkeypatch, *, toml: dict[str, str] | None = None, situations=None) -> Path:
    """A copy of the demo study with text replacements in study.toml; used via INFACT_STUDY."""
    folder = copy_study(DEMO, tmp_path / "demo", toml)
    if situations is not None:
        path = folder / "situations.jsonl"
        lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        path.write_text("".join(json.dumps(situations(s)) + "\n" for s in lines), encoding="utf-8")
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    return folder


def prolific_study(tmp_path, monkeypatch, on_fail: str = "continue") -> Path:
    return study_copy(
        tmp_path,
        monkeypatch,
        toml={
            '[platform]\nkind = "none"': f'[platform]\nkind = "prolific"\ncompletion_code = "{COMPLETION_CODE}"\n'
            f'screenout_code = "{SCREENOUT_CODE}"',
            'on_attention_fail = "continue"': f'on_attention_fail = "{on_fail}"',
        },
    )


def records(db: Path, **filters) -> list[dict]:
    return TinyDBStorage(db).records(**filters)


# ---------------------------------------------------------------- driving the app


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # The participant page catches everything: a "went wrong" box means a swallowed exception.
    assert not [e for e in at.error if "something went wrong" in e.value], [e.value for e in at.error]
    return at


def open_app(query: dict | None = None, secrets: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    for k, v in (secrets or {}).items():
        at.secrets[k] = v
    return run(at)


def token_of(at: AppTest) -> str:
    value = at.query_params["p"]
    return value[0] if isinstance(value, list) else value


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def html_bodies(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def progress_text(at: AppTest) -> str | None:
    """The progress line: "Situation 3 of 10" in the rating page's head (display.progress_html),
    or the text of an st.progress bar (steps drawn with one)."""
    line = re.compile(r'<p class="infact-progress-text"[^>]*>([^<]*)</p>')
    found = [m.group(1) for b in html_bodies(at) for m in line.finditer(b)]
    found += [bar.proto.text for bar in at.get("progress")]
    assert len(found) <= 1, found
    return found[0] if found else None


def situation_index(at: AppTest) -> int | None:
    keys = [r.key for r in at.radio if r.key and r.key.startswith("situation-")]
    return int(keys[0].split("-")[1]) if keys else None


def dialog_and_responses(at: AppTest) -> list[str]:
    """The dialog's HTML (from the head, which also holds the page script) and each response's, in order."""
    out = []
    for body in html_bodies(at):
        if '<div class="infact-dialog"' in body:
            out.append(body[body.index('<div class="infact-dialog"') :])
        elif body.startswith('<div class="infact-response'):
            out.append(body)
    return out


def view(at: AppTest) -> dict:
    """What the participant sees on a situation: progress, dialog and responses in order."""
    return {"progress": progress_text(at), "html": dialog_and_responses(at), "radios": [r.key for r in at.radio]}


def response_texts(at: AppTest) -> dict[str, str]:
    """Letter -> response HTML on the current situation."""
    out = {}
    for body in html_bodies(at):
        m = re.search(r'<span class="infact-letter"[^>]*>Response ([A-Z])</span>', body)
        if m:
            out[m.group(1)] = body
    return out


def give_consent(at: AppTest) -> AppTest:
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    return run(at)


def rate(at: AppTest, label: str = "Somewhat meaningful", *, letters=None, fail_check: bool = False) -> None:
    i = situation_index(at)
    for letter, body in response_texts(at).items():
        if letters is not None and letter not in letters:
            continue
        value = label
        if CHECK_TEXT in body:
            value = "Perfectly meaningful" if fail_check else "Meaningless"
        at.radio(key=f"situation-{i}-{letter}-meaningful").set_value(value)


def submit_situation(at: AppTest) -> AppTest:
    at.button(key=f"submit-situation-{situation_index(at)}").click()
    return run(at)


def is_check(at: AppTest) -> bool:
    return any(CHECK_TEXT in b for b in response_texts(at).values())


def answer_questionnaire(at: AppTest) -> AppTest:
    for r in at.radio:
        if r.key.startswith("q-"):
            r.set_value(r.options[-1])  # "Strongly agree" also passes the 'select the last option' item
    at.button(key="submit-questionnaire").click()
    return run(at)


def answer_demographics(at: AppTest) -> AppTest:
    for r in at.radio:
        if r.key.startswith("d-"):
            r.set_value(r.options[0])
    at.button(key="submit-demographics").click()
    return run(at)


def walk_situations(at: AppTest, until: int | None = None, **kw) -> AppTest:
    """Rate and submit situations until situation `until` is on screen (or none is left)."""
    while situation_index(at) is not None and situation_index(at) != until:
        rate(at, **kw)
        submit_situation(at)
    return at


def finish(at: AppTest) -> AppTest:
    walk_situations(at)
    answer_questionnaire(at)
    return answer_demographics(at)


def return_link(at: AppTest) -> str:
    """The same-tab "Return to Prolific" link on the completion page (the script redirects there too)."""
    [href] = [m.group(1) for b in html_bodies(at) for m in re.finditer(r'class="infact-return" href="([^"]+)"', b)]
    return href.replace("&amp;", "&")


def shown_code(at: AppTest) -> str:
    [code] = at.code
    return code.value.strip()


def open_dashboard(study_dir, db, monkeypatch, section: str) -> AppTest:
    """The signed-in dashboard of `study_dir` on store `db`, showing `section`."""
    from infact.access.auth import hash_password

    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    monkeypatch.setenv("INFACT_DB", str(db))
    at = AppTest.from_file(str(REPO / "pages" / "dashboard.py"), default_timeout=120)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password("pw")}
    at.run()
    at.segmented_control(key="section").set_value(section).run()
    assert not at.exception, [e.value for e in at.exception]
    return at
