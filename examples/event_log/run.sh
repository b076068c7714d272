#!/usr/bin/env bash
# An event log with TTL, in the sqlite3 shell; then the same store read by the `cassette` shell
# with a manual clock set two hours and then eight days ahead, to show the events expiring.
#   examples/event_log/run.sh [BUILD_DIR [WORKDIR]]   (WORKDIR default: BUILD_DIR/event_log)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
work=${2:-$build_dir/event_log}
rm -rf "$work" && mkdir -p "$work"
sqlite3 -bail -cmd ".load $build_dir/cassette" "$work/log.db" <"$here/event_log.sql"
query="SELECT at, level, message FROM main.events WHERE app = 'shop' AND day = '2024-06-01'"
for later in '2 hours' '8 days'; do
  echo
  echo "The same log $later later (the cassette shell, --clock \"now + $later\"):"
  "$build_dir/cassette" "$work/log.db.cassette" --clock "$(date -u -d "+$later" '+%Y-%m-%d %H:%M:%S')" \
    -e "$query"
done
