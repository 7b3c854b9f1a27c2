#!/usr/bin/env bash
# One command: install what the tests need on a fresh Debian machine, then run every test.
#
#   bash scripts/test.sh                 # the whole suite (what .ci/run runs)
#   bash scripts/test.sh -m "not e2e"    # the fast subset: no real-browser tests
#   bash scripts/test.sh -m "not e2e and not slow"   # quicker still: no simulations or many-process tests
#   bash scripts/test.sh -k storage      # extra arguments go to pytest
#
# Python packages go into a project virtualenv, .venv/ (git-ignored), never into the
# system Python: Debian 12's own python3 refuses `pip install` (PEP 668). The venv is
# made with INFACT_PYTHON (default: python3; 3.11 or newer) when missing; an existing one
# (the README's first command makes it) is reused, never deleted: what the tests need is
# pip-installed into it. Debian packages (apt-get, --no-install-recommends; needs root or
# sudo): python3-venv when venv/ensurepip is missing, chromium for the Playwright browser
# tests, nginx for the deployment test (tests/test_nginx_replicas.py, run as the current
# user with its own prefix) and PostgreSQL (a throw-away cluster is started for the storage
# tests and removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
# Let Python keep its bytecode caches (the git-ignored __pycache__/ folders). Where PYTHONDONTWRITEBYTECODE is
# set, as on this project's machines, each pytest worker and each app or CLI process a test starts compiled INFACT
# again and re-rewrote every test module's asserts: collecting the suite took 15 s instead of 8 s.
unset PYTHONDONTWRITEBYTECODE

PYTHON=${INFACT_PYTHON:-python3}
VENV=${INFACT_VENV:-.venv}

log() { echo "test.sh: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
    log "installing Debian packages: $*"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    log "INFACT needs Python 3.11 or newer; '$PYTHON' is $("$PYTHON" --version 2>&1 || echo missing)."
    log "Set INFACT_PYTHON to a newer interpreter (Debian 12's /usr/bin/python3 is 3.11)."
    exit 1
fi

# The interpreter itself, not a shim or an (activated) venv's copy that we may delete below.
PYTHON=$("$PYTHON" -c 'import sys; print(sys._base_executable if sys.prefix != sys.base_prefix else sys.executable)')

# Debian splits venv's pip bootstrap (ensurepip) into the python3-venv package.
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_install python3-venv
fi

# Reuse the venv: the README's first command makes .venv and may still be running the app from it, so a venv
# that works with a Python of 3.11 or newer is kept and only gets what the tests need added (pip install is
# additive); it is never deleted. Only a venv this script made itself (.infact-made-by-test-sh) whose Python
# no longer runs is made again. The stamp skips pip when neither the requirements nor the venv's Python changed.
# uv (from PyPI, pip-installed into the venv) resolves and installs requirements-dev.txt several times faster than
# pip: parallel downloads, one resolution, no byte-compiling (docs/testing.md has the figures). uv reads no pip
# configuration, so pip's own index settings (pip config list: a mirror, local wheels, constraints) are handed to
# it, and it picks versions across all indexes as pip does (unsafe-best-match). Where uv cannot be had or fails,
# pip installs the same file.
uv_args() {
    "$VENV/bin/python" - <<'PY'
import shlex, subprocess, sys
config = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
flags = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links",
         "constraint": "--constraint"}
values = {}
for line in config.splitlines():  # e.g. global.extra-index-url='file:///a file:///b'; ":env:" lines come first
    key, _, value = line.partition("=")
    name = key.rpartition(".")[2]
    if name in flags and name not in values:  # pip's environment variables win over its files
        values[name] = shlex.split(value)[0].split() if value else []
print(" ".join(f"{flags[n]} {shlex.quote(v)}" for n, vs in values.items() for v in vs))
PY
}
install_requirements() {
    if "$VENV/bin/python" -m pip install --disable-pip-version-check -q uv \
        && eval "set -- $(uv_args)" \
        && "$VENV/bin/python" -m uv pip install --quiet --python "$VENV/bin/python" --index-strategy unsafe-best-match \
            "$@" -r requirements-dev.txt; then
        return 0
    fi
    log "uv could not install requirements-dev.txt: pip installs it"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -r requirements-dev.txt
}
venv_ok() { "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
if [ -e "$VENV" ] && ! venv_ok; then
    if [ -f "$VENV/.infact-made-by-test-sh" ] && [ -f "$VENV/pyvenv.cfg" ]; then
        log "$VENV (made by this script) has no working Python 3.11+: making it again"
        rm -rf "$VENV"
    else
        log "$VENV exists but is not a virtualenv with a working Python 3.11 or newer; this script did not"
        log "make it, so it leaves it alone: move it away, or set INFACT_VENV to another folder"
        exit 1
    fi
fi
if [ ! -e "$VENV" ]; then
    log "creating $VENV with $("$PYTHON" --version)"
    "$PYTHON" -m venv "$VENV"
    touch "$VENV/.infact-made-by-test-sh"
fi
want=$({ "$VENV/bin/python" --version; cat requirements.txt requirements-dev.txt; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.infact-requirements" 2>/dev/null)" != "$want" ]; then
    log "installing requirements-dev.txt into $VENV ($("$VENV/bin/python" --version); a minute or two the first time)"
    install_requirements
    echo "$want" > "$VENV/.infact-requirements"
fi
VENV_PYTHON=$(cd "$VENV" && pwd)/bin/python
export INFACT_TEST_VENV=$(cd "$VENV" && pwd)  # tests/test_setup.py checks pytest runs in it

if ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium fonts-liberation
fi
# nginx sits in /usr/sbin, which is not on every user's PATH; the test looks there too.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    apt_install nginx
fi

eval "$(bash scripts/pg_test_server.sh start)"
trap 'bash scripts/pg_test_server.sh stop "$INFACT_TEST_PG_DIR" || true' EXIT

# With no arguments: ruff check and ruff format --check, then two phases: the real-browser tests on their own (never
# beside the CPU-bound tests), three browser test files at a time (INFACT_TEST_E2E_WORKERS, default 3), then every
# other test on INFACT_TEST_WORKERS (default 3) pytest-xdist workers, each test file one unit of work
# (tests/conftest.py). Three workers on CI's two cores: each phase has tests that wait (link lifetimes, stub systems'
# delays, subprocesses, lock timeouts), and a third worker fills those waits (browser phase 568 s -> 496 s, the rest
# 315 s -> 278 s on a quiet 2-core machine; docs/testing.md). With arguments, one pytest run with them, on the same
# workers unless the arguments pick their own (-n, --numprocesses, -p no:xdist) or need one process (--pdb, --trace).
WORKERS=${INFACT_TEST_WORKERS:-3}
if [ $# -gt 0 ]; then
    parallel=(-n "$WORKERS" --dist loadgroup)
    for arg in "$@"; do
        case "$arg" in -n | -n[0-9]* | --numprocesses* | no:xdist | --pdb | --trace) parallel=() ;; esac
    done
    status=0
    "$VENV_PYTHON" -m pytest "${parallel[@]}" "$@" || status=$?
    exit $status
fi
status=0
log "ruff check (the linter; [tool.ruff] in pyproject.toml)"
"$VENV_PYTHON" -m ruff check --quiet . || status=$?
log "ruff format --check (every file as ruff format writes it)"
"$VENV_PYTHON" -m ruff format --check --quiet . || status=$?
"$VENV_PYTHON" -m pytest -m e2e -n "${INFACT_TEST_E2E_WORKERS:-3}" --dist loadfile || status=$?
"$VENV_PYTHON" -m pytest -m "not e2e" -n "$WORKERS" --dist loadgroup || status=$?
exit $status
