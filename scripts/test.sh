#!/usr/bin/env bash
# One command: install what the tests need on a fresh Debian machine, then run every test.
#
#   bash scripts/test.sh            # the whole suite (what .ci/run runs)
#   bash scripts/test.sh -k storage # extra arguments go to pytest
#
# Installs: Debian's chromium (for the Playwright end-to-end tests) and PostgreSQL
# (a throw-away cluster is started for the storage tests and removed afterwards),
# and the Python packages in requirements-dev.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v chromium >/dev/null 2>&1; then
    echo "test.sh: installing Debian's chromium for the browser tests" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
fi

python3 -m pip install --disable-pip-version-check --root-user-action=ignore -q -r requirements-dev.txt

eval "$(bash scripts/pg_test_server.sh start)"
trap 'bash scripts/pg_test_server.sh stop "$INFACT_TEST_PG_DIR" || true' EXIT

python3 -m pytest "$@"
