"""Helpers shared by the tests, one module per subject; conftest.py files hold only fixtures and hooks.

- studies: study folders (`make_study`, from simulations/study_folders.py), a `FakeClock`, walking a study (`walk`,
  `answers_for`)
- participants: a consented participant of the core (`consented`, `start`); the funnel's START
- paths: where the repository and its data are
- stores: every storage backend for the storage tests; PostgreSQL set-up
- importing: the importers' fixture files
- chat_stubs: stub systems (their fixtures are in tests/conftest.py)
- app: driving the Streamlit app under AppTest (`open_app`, `give_consent`, `rate`, ...)
- llm_studies: studies that use the stub OpenAI-compatible server (simulations/openai_stub.py)

What bench/ uses as well lives in simulations/ (bench imports no test module): the simulated studies with known
truth, the stub servers (openai_stub, chat_stub), study folders (study_folders), the browser helpers (browser:
`start_server`, `wait_idle`, `consent`, ...), the nginx + replicas deployment and the websocket participants
(deployment, st_client, ws_participants).
"""
