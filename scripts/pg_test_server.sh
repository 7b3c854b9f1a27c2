#!/usr/bin/env bash
# Throw-away PostgreSQL server for the tests and the load benchmark.
#
#   eval "$(scripts/pg_test_server.sh start)"      # or just: scripts/pg_test_server.sh
#   ... tests use $INFACT_TEST_PG_URL ...
#   scripts/pg_test_server.sh stop "$INFACT_TEST_PG_DIR"
#
# `start` prints two lines for eval, and nothing else on stdout:
#   export INFACT_TEST_PG_URL=postgresql://infact:<random password>@127.0.0.1:<port>/infact_test
#   export INFACT_TEST_PG_DIR=<temp dir holding the cluster, its socket and its log>
# Progress and errors go to stderr; a failed start exits non-zero and removes the dir.
# `stop DIR` stops that server and deletes DIR (only a dir this script created).
#
# If no PostgreSQL binaries are found it installs the Debian `postgresql` package
# (needs root and network). As root, the cluster runs as the `postgres` user
# (created if missing) because PostgreSQL refuses to run as root.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"  # runuser, useradd: not in every root PATH

log() { echo "pg_test_server: $*" >&2; }
MARKER=.infact-pg-test-server

find_bindir() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v pg_ctl)")"
        return
    fi
    # Debian keeps the server binaries out of PATH, one dir per major version.
    local newest
    newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then echo "$newest"; fi
}

install_postgres() {
    if [ "$(id -u)" != 0 ]; then
        log "PostgreSQL is not installed and we are not root: run 'apt-get install -y --no-install-recommends postgresql' as root"
        exit 1
    fi
    log "installing PostgreSQL from Debian packages"
    # Debian would create and start a default cluster on port 5432; we need none.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/infact-no-main.conf
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local bindir
    bindir=$(find_bindir)
    if [ -z "$bindir" ]; then
        install_postgres
        bindir=$(find_bindir)
        [ -n "$bindir" ] || { log "initdb still not found after installing postgresql"; exit 1; }
    fi

    local dir run_as=()
    dir=$(mktemp -d "${TMPDIR:-/tmp}/infact-pg.XXXXXX")
    touch "$dir/$MARKER"
    # On failure, leave nothing behind (pg_ctl must run as the cluster's owner too).
    trap 'log "start failed; server log: $(tail -n 20 "$dir/server.log" 2>/dev/null)"
          "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" stop -m immediate >/dev/null 2>&1 || true
          rm -rf "$dir"' ERR
    if [ "$(id -u)" = 0 ]; then
        id -u postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
        chown -R postgres: "$dir"
        chmod 755 "$dir"  # clients running as root need the socket dir
        run_as=(runuser -u postgres --)
    fi

    local password port
    password=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
    echo "$password" > "$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir/pwfile"
    # Local socket: trust (for createdb below); TCP: password, as on a managed server.
    "${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U infact --pwfile="$dir/pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; false; }
    rm -f "$dir/pwfile"

    port=$(free_port)
    # Many pools (tests, 20-thread benchmark) each open several connections.
    "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-p $port -h 127.0.0.1 -k $dir -c max_connections=300" start >/dev/null
    "${run_as[@]}" "$bindir/createdb" -h "$dir" -p "$port" -U infact infact_test
    echo "$bindir" > "$dir/bindir"
    trap - ERR
    log "PostgreSQL $("$bindir/pg_ctl" --version | awk '{print $3}') running on 127.0.0.1:$port (dir $dir)"
    echo "export INFACT_TEST_PG_URL=postgresql://infact:$password@127.0.0.1:$port/infact_test"
    echo "export INFACT_TEST_PG_DIR=$dir"
}

stop() {
    local dir=${1:-${INFACT_TEST_PG_DIR:-}}
    if [ -z "$dir" ] || [ ! -f "$dir/$MARKER" ]; then
        log "usage: $0 stop DIR   (DIR = \$INFACT_TEST_PG_DIR printed by start)"
        exit 2
    fi
    local bindir run_as=()
    bindir=$(cat "$dir/bindir" 2>/dev/null || find_bindir)
    [ "$(id -u)" = 0 ] && run_as=(runuser -u postgres --)
    if [ -f "$dir/data/postmaster.pid" ]; then
        "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" stop -m fast -w >/dev/null 2>&1 \
            || "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" stop -m immediate >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    log "stopped and removed $dir"
}

case "${1:-start}" in
    start) start ;;
    stop) shift; stop "$@" ;;
    *) log "usage: $0 [start] | stop DIR"; exit 2 ;;
esac
