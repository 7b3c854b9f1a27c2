"""Where the tests find the repository and its data.

Test modules import these from here, not `from conftest import …`: in a full run the
module name `conftest` can resolve to tests/e2e/conftest.py.
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
DEMO_STUDY = REPO / "data" / "demo"
