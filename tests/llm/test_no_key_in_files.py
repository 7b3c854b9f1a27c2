"""Acceptance: after a run with endpoint systems, generate and judge, no file holds the API key.

The run: bots chat through an arena of endpoint systems into a TinyDB store (one system's server
misbehaves: it echoes the key in answers and fails with it in an error body), `generate` and
`judge` write into the study folder, `export` writes every table and transcripts.jsonl, and the
openai/httpx loggers write DEBUG lines to a log file. Then every file under the store, the study,
the exports and the logs is read, bytes and all, for the key.
"""

from __future__ import annotations

import logging

import pytest

from infact.cli.main import main
from infact.participation.bots import default_quality, run_bots
from infact.storage import open_storage
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_judges import judge_rule
from tests.support.llm_studies import KEY_ENV, demo_rule, endpoint_live_study

KEY = "sk-live-9c2e71b0d4f84a6e"
JUDGE = '\n[judges.stubby]\nendpoint = "stub"\n'


def files_holding(root, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


@pytest.mark.slow  # 3.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_no_api_key_in_any_file_of_the_store_exports_transcripts_or_logs(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    log = tmp_path / "logs" / "run.log"
    log.parent.mkdir()
    handler = logging.FileHandler(log)
    handler.setLevel(logging.DEBUG)
    loggers = [logging.getLogger(n) for n in ("openai", "httpx", "httpx2", "infact")]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    calls = {"n": 0}

    def leaky(request: dict):
        calls["n"] += 1
        return f"{demo_rule(request)} (debug: Bearer {KEY})" if calls["n"] % 3 == 0 else demo_rule(request)

    try:
        with serve_openai(rule=leaky) as stub:
            folder = endpoint_live_study(tmp_path / "study", stub.url, key_env=KEY_ENV)
            (folder / "study.toml").write_text((folder / "study.toml").read_text() + JUDGE)
            study = load_study(folder)
            db = tmp_path / "store"
            storage = open_storage(str(db))
            stub.fail(401, times=2)
            run_bots(study, storage, 4, concurrency=2, seed=2)
            storage.close()
            assert main(
                ["generate", "--study", str(folder), "--system", "GenreBot", "--endpoint", "stub", "--force"]
            ) in (0, 1)
            stub.rule = judge_rule(load_study(folder), default_quality(study))
            assert main(["judge", "--study", str(folder), "--judge", "stubby", "--db", str(db)]) in (0, 1)
            assert main(["export", "--study", str(folder), "--db", str(db), "--out", str(tmp_path / "exports")]) == 0
            logging.getLogger("openai").debug("Request options: headers={'Authorization': 'Bearer %s'}", KEY)
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        handler.close()
    assert all(a == f"Bearer {KEY}" for a in stub.auth)  # the key was used …
    assert (tmp_path / "exports" / "transcripts.jsonl").exists() and log.stat().st_size > 0
    assert list((folder / "judges").glob("*.csv")) and list((folder / "generated").glob("*.jsonl"))
    assert files_holding(tmp_path, KEY) == []  # … and written nowhere
    assert files_holding(tmp_path, "[api key removed]")  # the leaky answers were scrubbed, not dropped
