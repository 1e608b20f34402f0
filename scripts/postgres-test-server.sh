#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (docs/postgresql.md, "The test server").
#
#   scripts/postgres-test-server.sh start   initdb in a new temporary folder, start a server on
#                                           127.0.0.1 on a free port, print its URL on stdout
#   scripts/postgres-test-server.sh url     print the URL of the server this checkout started
#   scripts/postgres-test-server.sh stop    stop that server and remove its folder
#   scripts/postgres-test-server.sh restart [SECONDS]
#                                           restart that server: fast shutdown, SECONDS down
#                                           (default 0), start again on the same port and folder
#                                           (the URL stays valid; clients see their sessions
#                                           end). The reliability harness's "postgresql
#                                           processes" part uses it.
#   scripts/postgres-test-server.sh run CMD…  start, run CMD with STRATA_TEST_POSTGRESQL_URL set,
#                                           stop (also when CMD fails or is interrupted); exit
#                                           status of CMD. Each run keeps its own state file, so
#                                           runs at the same time do not meet.
#   scripts/postgres-test-server.sh check   print the folder of initdb and pg_ctl; exit 1 if
#                                           they are not installed (`make deps` asks)
#
# The server listens on 127.0.0.1 only (and on a Unix socket inside its folder), with password
# authentication (scram-sha-256) for TCP: a superuser role `strata` with a random password that
# is new on each start, and a database `strata_test`. The URL is
# postgresql://strata:<password>@127.0.0.1:<port>/strata_test. The folder, port and URL of the
# running server are kept in a state file (STRATA_POSTGRESQL_STATE_FILE, by default
# .build/postgresql-test-server.env of this checkout) so `stop` finds them; a start finding a
# server already recorded there stops it first.
#
# initdb and the server refuse to run as root: as root they run as the `postgres` user (created
# by Debian's postgresql package) through runuser. The binaries come from PG_BIN, else
# `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin, else PATH.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
state_file="${STRATA_POSTGRESQL_STATE_FILE:-$repo/.build/postgresql-test-server.env}"

log() { echo "postgres-test-server: $*" >&2; }

find_bin() {
    local candidate
    for candidate in "${PG_BIN:-}" "$(pg_config --bindir 2>/dev/null || true)" \
        "$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"; do
        if [ -n "$candidate" ] && [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then
            echo "$candidate"; return 0
        fi
    done
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        dirname "$(command -v initdb)"; return 0
    fi
    log "initdb and pg_ctl not found (Debian: apt-get install -y postgresql; or set PG_BIN)"
    return 1
}

# Runs a command as the server's owner: the postgres user when we are root, else ourselves.
as_owner() {
    if [ "$(id -u)" = "0" ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# A port the kernel just gave out as free (python3), else a random one; a start that finds it
# taken tries again.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null ||
        echo $((20000 + RANDOM % 40000))
}

stop_server() {
    [ -f "$state_file" ] || return 0
    local dir="" bin=""
    # shellcheck disable=SC1090
    dir="$(sed -n 's/^dir=//p' "$state_file")"
    bin="$(sed -n 's/^bin=//p' "$state_file")"
    if [ -n "$dir" ] && [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    case "$dir" in
        */strata-postgresql.*) rm -rf "$dir" ;;
        *) [ -z "$dir" ] || log "not removing unexpected folder $dir" ;;
    esac
    rm -f "$state_file"
    log "stopped${dir:+ and removed $dir}"
}

start_server() {
    stop_server
    local bin dir password port url attempt
    bin="$(find_bin)"
    dir="$(mktemp -d "${TMPDIR:-/tmp}/strata-postgresql.XXXXXX")"
    password="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    mkdir -p "$dir/socket"
    printf '%s\n' "$password" >"$dir/pwfile"
    chmod 700 "$dir"
    if [ "$(id -u)" = "0" ]; then chown -R postgres: "$dir"; fi
    mkdir -p "$(dirname "$state_file")"
    printf 'dir=%s\nbin=%s\n' "$dir" "$bin" >"$state_file"
    if ! as_owner "$bin/initdb" -D "$dir/data" -U strata --pwfile="$dir/pwfile" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2; stop_server; return 1
    fi
    rm -f "$dir/pwfile"
    for attempt in 1 2 3; do
        port="$(free_port)"
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c max_connections=100" \
            start >/dev/null 2>&1; then
            break
        fi
        log "start on port $port failed (attempt $attempt)"; tail -n 5 "$dir/server.log" >&2 || true
        port=""
    done
    if [ -z "$port" ]; then stop_server; return 1; fi
    if ! as_owner "$bin/psql" -h "$dir/socket" -p "$port" -U strata -d postgres -v ON_ERROR_STOP=1 -q \
        -c "CREATE DATABASE strata_test" >/dev/null; then
        stop_server; return 1
    fi
    url="postgresql://strata:$password@127.0.0.1:$port/strata_test"
    printf 'port=%s\nurl=%s\n' "$port" "$url" >>"$state_file"
    log "PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, folder $dir"
    echo "$url"
}

restart_server() {
    [ -f "$state_file" ] || { log "no server running (start it first)"; return 1; }
    local dir bin port
    dir="$(sed -n 's/^dir=//p' "$state_file")"
    bin="$(sed -n 's/^bin=//p' "$state_file")"
    port="$(sed -n 's/^port=//p' "$state_file")"
    [ -n "$dir" ] && [ -n "$port" ] && [ -d "$dir/data" ] || { log "state file $state_file names no server"; return 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    sleep "${1:-0}"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c max_connections=100" \
        start >/dev/null 2>&1 || { log "restart on port $port failed"; tail -n 5 "$dir/server.log" >&2 || true; return 1; }
    log "restarted on 127.0.0.1:$port"
}

case "${1:-}" in
    start) start_server ;;
    restart) restart_server "${2:-0}" ;;
    stop) stop_server ;;
    check) find_bin ;;
    url)
        [ -f "$state_file" ] && sed -n 's/^url=//p' "$state_file" | grep . || { log "no server running (start it first)"; exit 1; }
        ;;
    run)
        shift
        [ $# -gt 0 ] || { log "run needs a command"; exit 2; }
        [ -n "${STRATA_POSTGRESQL_STATE_FILE:-}" ] || state_file="$(mktemp -u "${TMPDIR:-/tmp}/strata-postgresql-state.XXXXXX")"
        url="$(start_server)"
        trap stop_server EXIT
        trap 'exit 130' INT TERM
        status=0
        STRATA_TEST_POSTGRESQL_URL="$url" "$@" || status=$?
        exit "$status"
        ;;
    *)
        echo "usage: $0 start|stop|restart|url|check|run COMMAND…" >&2
        exit 2
        ;;
esac
