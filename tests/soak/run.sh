#!/usr/bin/env bash
# The multi-process soak (tests/soak/soak.py) against a throwaway PostgreSQL 15:
#   tests/soak/run.sh BUILD_DIR
# Environment: SOAK_SECONDS (default 600), SOAK_SEED (default: the time), SOAK_DIR (the work
# directory; default a new one under /tmp), SOAK_MAX_FILES and SOAK_MAX_FDS (the bounds on the
# store's file count and each long-lived process's descriptors; 400 and 256), SOAK_WORKERS and
# SOAK_CHECKERS (comma-separated subsets of soak.py's worker slots and checker hosts).
# As root, PostgreSQL and every soak process run as the `postgres` user (the server's backends
# open the store, so it must be theirs). Prints a summary; exits 1 on any violation, keeping the
# work directory and printing how to reproduce.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
seconds=${SOAK_SECONDS:-600}
seed=${SOAK_SEED:-$(date +%s)}

for f in cassette cassette.so cassette_fdw.so; do
  [ -f "$build_dir/$f" ] || { echo "soak: $build_dir/$f is missing: build first"; exit 1; }
done
if grep -q '^CASSETTE_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  echo "soak: a sanitizer build of cassette_fdw cannot be loaded into PostgreSQL"; exit 1
fi
export PG_EXTENSION_BUILD=$build_dir  # the server loads this build's cassette_fdw
source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start || exit 1
work=${SOAK_DIR:-$(mktemp -d /tmp/cassette-soak.XXXXXX)}
mkdir -p "$work"
[ "$(id -u)" = 0 ] && chown postgres: "$work"

pg_run_as_postgres env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER=postgres \
    python3 "$root/tests/soak/soak.py" --build "$build_dir" --work "$work" \
    --seconds "$seconds" --seed "$seed" --max-files "${SOAK_MAX_FILES:-400}" \
    --max-fds "${SOAK_MAX_FDS:-256}" ${SOAK_WORKERS:+--workers "$SOAK_WORKERS"} \
    ${SOAK_CHECKERS:+--checkers "$SOAK_CHECKERS"}
status=$?
if [ $status -eq 0 ] && [ -z "${SOAK_DIR:-}" ]; then rm -rf "$work"; fi
exit $status
