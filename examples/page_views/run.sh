#!/usr/bin/env bash
# Page-view counters, in the sqlite3 shell.
#   examples/page_views/run.sh [BUILD_DIR [WORKDIR]]   (WORKDIR default: BUILD_DIR/page_views)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
work=${2:-$build_dir/page_views}
rm -rf "$work" && mkdir -p "$work"
sqlite3 -bail -cmd ".load $build_dir/cassette" "$work/views.db" <"$here/page_views.sql"
