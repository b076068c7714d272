# For the benchmarks that drive the SQLite extension from Python (tests/bench/bench_sqlite.sh,
# bench_sai.sh, scale.sh); source it.
#
#   exec_sqlite_python NAME SCRIPT BUILD_DIR
#
# Fails with "NAME: BUILD_DIR/cassette.so is missing" before a build, else replaces the shell
# with SCRIPT BUILD_DIR run by a python3 whose sqlite3 module can load extensions (Debian's can;
# pyenv builds often cannot).
exec_sqlite_python() {
  local name=$1 script=$2 build_dir=$3 python=python3 candidate
  if [ ! -f "$build_dir/cassette.so" ]; then
    echo "$name: $build_dir/cassette.so is missing" >&2
    exit 1
  fi
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
      python=$candidate
      break
    fi
  done
  exec "$python" "$script" "$build_dir"
}
