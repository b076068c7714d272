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
# PG_EXTENSION_BUILD, when set, is a build directory whose cassette_fdw (its .so, with the
# repository's sql/cassette_fdw.control and sql/cassette_fdw--*.sql) the server gets as if it
# were installed, without touching PostgreSQL's own directories: the server runs from a private
# copy of PostgreSQL's bin directory under PG_ROOT, and PostgreSQL finds its share and lib
# directories relative to where its programs are (symlinks to the system's, plus cassette_fdw's
# files). So test runs of different builds, or of the same suite twice at once, never load each
# other's wrapper, and no test needs to write into /usr.
#
# Runs as root (su to postgres) or as the postgres user itself. The server's user must be able to
# read and write any store directory it is given: pg_throwaway_start makes PG_WORK_DIR (owned by
# postgres, mode 0777) for that.

PG_SYSTEM_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_BIN=$PG_SYSTEM_BIN  # a private copy's while a server with PG_EXTENSION_BUILD runs

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
  PG_BIN=$PG_SYSTEM_BIN
  if [ -n "${PG_EXTENSION_BUILD:-}" ]; then
    pg_private_install "$PG_EXTENSION_BUILD" || return 1
  fi
  pg_run_as_postgres "$PG_BIN/initdb" -D "$PG_DATA_DIR" -U postgres -A trust --no-sync \
      -E UTF8 --locale=C.UTF-8 >"$PG_ROOT/initdb.log" 2>&1 \
    || { cat "$PG_ROOT/initdb.log"; return 1; }
  # shellcheck disable=SC2086  # PG_SERVER_ENV is words
  pg_run_as_postgres env ${PG_SERVER_ENV:-} "$PG_BIN/pg_ctl" -D "$PG_DATA_DIR" \
      -l "$PG_ROOT/server.log" -w \
      -o "-p $PGPORT -k $PG_SOCKET_DIR -c listen_addresses='' -c fsync=off" start >/dev/null \
    || { cat "$PG_ROOT/server.log"; return 1; }
  export PGHOST=$PG_SOCKET_DIR PGPORT PGUSER=postgres PG_DATA_DIR PG_WORK_DIR PG_ROOT
  trap pg_throwaway_stop EXIT
}

# A private PostgreSQL under $PG_ROOT/pg laid out as Debian's (lib/postgresql/15/bin,
# share/postgresql/15, lib/postgresql/15/lib) with cassette_fdw from build $1 installed in it;
# PG_BIN then names its bin directory. Hard links where the file system allows, else copies.
pg_private_install() {
  local build=$1 repo system_share=/usr/share/postgresql/15 system_lib=/usr/lib/postgresql/15/lib
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  [ -f "$build/cassette_fdw.so" ] || { echo "pg_throwaway: no $build/cassette_fdw.so"; return 1; }
  local bin=$PG_ROOT/pg/lib/postgresql/15/bin lib=$PG_ROOT/pg/lib/postgresql/15/lib
  local share=$PG_ROOT/pg/share/postgresql/15
  mkdir -p "$bin" "$lib" "$share/extension"
  local f
  for f in "$PG_SYSTEM_BIN"/*; do
    cp -l "$f" "$bin/" 2>/dev/null || cp "$f" "$bin/" || return 1
  done
  for f in "$system_share"/*; do
    [ "${f##*/}" = extension ] || ln -s "$f" "$share/"
  done
  for f in "$system_share"/extension/*; do ln -s "$f" "$share/extension/"; done
  for f in "$system_lib"/*; do ln -s "$f" "$lib/"; done
  rm -f "$lib/cassette_fdw.so" "$share/extension/cassette_fdw"*
  cp "$build/cassette_fdw.so" "$lib/" || return 1
  cp "$repo"/sql/cassette_fdw.control "$repo"/sql/cassette_fdw--*.sql "$share/extension/" || return 1
  chmod -R a+rX "$PG_ROOT/pg"
  PG_BIN=$bin
}

pg_throwaway_stop() {
  [ -n "${PG_DATA_DIR:-}" ] || return 0
  pg_run_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA_DIR" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$PG_ROOT"
  PG_DATA_DIR=
}
