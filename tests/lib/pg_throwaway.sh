# A throwaway PostgreSQL 15 server for tests and benchmarks: initdb as the `postgres` user into a
# private directory, a private socket directory, a free port; stopped and removed on exit.
#
#   source tests/lib/pg_throwaway.sh
#   pg_throwaway_start            # exports PGHOST (the socket dir), PGPORT, PGUSER=postgres, PG_DATA_DIR
#   psql -d postgres -c 'SELECT 1'
#   pg_run_as_postgres CMD...     # run a command as the postgres user (the server's own user)
#   pg_throwaway_stop             # also runs from the EXIT trap that pg_throwaway_start installs
#
# PG_SERVER_ENV (VAR=value words), when set, is the server's extra environment: the sanitizer
# build's runtime for a server that loads an instrumented cassette_fdw (tests/lib/sanitize.sh).
# PG_PRIVATE_LIB, when set, is a cassette_fdw.so the server loads from a directory of its own
# (its dynamic_library_path) instead of PostgreSQL's pkglibdir, which stays untouched.
#
# Runs as root (su to postgres) or as the postgres user itself. The server's user must be able to
# read and write any store directory it is given: pg_throwaway_start makes PG_WORK_DIR (owned by
# postgres, mode 0777) for that.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

pg_run_as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else su postgres -s /bin/bash -c "$(printf '%q ' "$@")"; fi
}

pg_free_port() {  # a TCP port nobody listens on
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pg_throwaway_start() {
  PG_ROOT=$(mktemp -d /tmp/cassette-pg.XXXXXX)
  chmod 0755 "$PG_ROOT"
  PG_DATA_DIR=$PG_ROOT/data
  PG_SOCKET_DIR=$PG_ROOT/socket
  PG_WORK_DIR=$PG_ROOT/work
  mkdir -p "$PG_SOCKET_DIR" "$PG_WORK_DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$PG_ROOT" "$PG_SOCKET_DIR" "$PG_WORK_DIR"
  chmod 0777 "$PG_WORK_DIR"
  PGPORT=$(pg_free_port)
  local lib_opt=
  if [ -n "${PG_PRIVATE_LIB:-}" ]; then
    mkdir -p "$PG_ROOT/lib"
    cp "$PG_PRIVATE_LIB" "$PG_ROOT/lib/"
    lib_opt="-c dynamic_library_path=$PG_ROOT/lib"
  fi
  pg_run_as_postgres "$PG_BIN/initdb" -D "$PG_DATA_DIR" -U postgres -A trust --no-sync \
      -E UTF8 --locale=C.UTF-8 >"$PG_ROOT/initdb.log" 2>&1 \
    || { cat "$PG_ROOT/initdb.log"; return 1; }
  # shellcheck disable=SC2086  # PG_SERVER_ENV is words
  pg_run_as_postgres env ${PG_SERVER_ENV:-} "$PG_BIN/pg_ctl" -D "$PG_DATA_DIR" \
      -l "$PG_ROOT/server.log" -w \
      -o "-p $PGPORT -k $PG_SOCKET_DIR -c listen_addresses='' -c fsync=off $lib_opt" start >/dev/null \
    || { cat "$PG_ROOT/server.log"; return 1; }
  export PGHOST=$PG_SOCKET_DIR PGPORT PGUSER=postgres PG_DATA_DIR PG_WORK_DIR PG_ROOT
  trap pg_throwaway_stop EXIT
}

pg_throwaway_stop() {
  [ -n "${PG_DATA_DIR:-}" ] || return 0
  pg_run_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA_DIR" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$PG_ROOT"
  PG_DATA_DIR=
}
