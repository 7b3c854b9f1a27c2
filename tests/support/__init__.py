"""Helpers shared by the tests, one module per subject; conftest.py files hold only fixtures and hooks.

- studies: study folders (`make_study`), a `FakeClock`, walking a study (`walk`, `answers_for`)
- participants: a consented participant of the core (`consented`, `start`); the funnel's START
- paths: where the repository and its data are
- stores: every storage backend for the storage tests; PostgreSQL set-up
- importing: the importers' fixture files
- chat_stubs: stub systems (their fixtures are in tests/conftest.py)
- app: driving the Streamlit app under AppTest (`open_app`, `give_consent`, `rate`, ...)
- browser: driving it in Chromium (`start_server`, `wait_idle`, `consent`, ...)
- llm_studies: studies that use the stub OpenAI-compatible server (simulations/openai_stub.py; the simulated
  studies with known truth are in simulations/ too, shared with bench/)
"""
