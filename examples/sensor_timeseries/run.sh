#!/usr/bin/env bash
# A time series bucketed by hour, in the sqlite3 shell.
#   examples/sensor_timeseries/run.sh [BUILD_DIR [WORKDIR]]   (WORKDIR default: BUILD_DIR/sensor_timeseries)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
work=${2:-$build_dir/sensor_timeseries}
rm -rf "$work" && mkdir -p "$work"
sqlite3 -bail -cmd ".load $build_dir/cassette" "$work/sensors.db" <"$here/timeseries.sql"
