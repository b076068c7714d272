#!/usr/bin/env bash
# Builds the Twissandra example database and prints a home timeline, in the sqlite3 shell.
#
#   examples/twissandra/run.sh [BUILD_DIR [WORKDIR]]
#
# BUILD_DIR (default build) holds cassette.so; WORKDIR (default BUILD_DIR/twissandra) receives
# twissandra.db and its store twissandra.db.cassette/, recreated on each run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
work=${2:-$build_dir/twissandra}
rm -rf "$work" && mkdir -p "$work"
db="$work/twissandra.db"
run_sql() {  # run_sql FILE...: feed the files to one sqlite3 shell with the extension loaded
  cat "$@" | sqlite3 -bail -cmd ".load $build_dir/cassette" "$db"
}
run_sql "$here/schema.sql" "$here/load.sql"
echo "Loaded: $(run_sql <(echo "SELECT (SELECT count(*) FROM users) || ' users, ' ||
  (SELECT count(*) FROM followers) || ' follower links, ' || (SELECT count(*) FROM tweets) ||
  ' tweets, ' || (SELECT count(*) FROM timeline) || ' timeline rows';"))"
echo
run_sql "$here/timeline.sql"
