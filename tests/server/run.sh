#!/usr/bin/env bash
# `cassette serve`'s tests: each starts the server on a free port and stops it with SIGTERM.
#   test_protocol.py           raw frames: versions, limits, malformed frames, streams, compression
#   test_driver_connection.py  the DataStax Python driver's connections: types, results, errors
#   test_driver_cluster.py     the driver as applications use it: Cluster(...).connect()
#   test_auth.py               --auth-file (PasswordAuthenticator), cassette passwd, --insecure
#   test_tls.py                --tls-cert/--tls-key, with a certificate the openssl command makes
#   test_events.py             SCHEMA_CHANGE events, from this server and from a shell process
#   test_limits.py             2,000 connections, --max-in-flight with a slow reader, --idle-timeout
#   node/test_node_driver.js   the Node.js cassandra-driver (npm, make deps): metadata, types,
#                              errors, authentication
#   test_driver_statements.py  prepared statements, batches, client timestamps, paging
#   test_golden_through_driver.py  the golden CQL corpus (tests/cql) through the driver
#   test_mixed_hosts.py        the server, the shell and SQLite on one store at once
#   test_protocol_v5.py        protocol v5: the driver on v5 (LZ4 too), hand-made segments, bad CRCs
#   test_concurrency.py        one connection's requests run concurrently, answered as they
#                              complete; USE keeps its place
#   test_paging_state.py       a paging state resumes only its own query
#   test_consistency.py        consistency levels checked as Cassandra 5.0 checks them on one node
#   test_virtual_tables.py     system_virtual_schema and system_views as drivers read them; the
#                              50 KiB batch limit (--batch-size-fail-threshold)
#   test_masking_permissions.py  column masks by auth-file permission (UNMASK, SELECT_MASKED)
#   test_driver_suite.py       what the Python driver's own integration suite hit, case by case
#                              (python_driver_suite.sh runs that suite itself: a local tool)
# They run under Debian's /usr/bin/python3, which has python3-cassandra, python3-lz4 and
# python3-snappy (make deps). Prints "server: N passed, M failed" last.
set -uo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")"
case $build_dir in /*) ;; *) build_dir=$OLDPWD/$build_dir ;; esac
passed=0
failed=0
for test in test_protocol.py test_driver_connection.py test_driver_cluster.py test_auth.py \
            test_tls.py test_events.py test_limits.py test_driver_statements.py test_protocol_v5.py \
            test_concurrency.py test_paging_state.py test_driver_suite.py test_consistency.py \
            test_virtual_tables.py test_masking_permissions.py \
            test_golden_through_driver.py \
            test_mixed_hosts.py; do
  out=$(mktemp)
  # test_events.py and test_mixed_hosts.py load the SQLite extension into python, and a
  # sanitizer build's needs its runtime preloaded (tests/lib/sanitize.sh); the others must not
  # have it: the preloaded ASan intercepts crypt(), which python's crypt module (test_auth.py)
  # then calls through a null pointer.
  case $test in
    test_events.py | test_mixed_hosts.py) host_env=sanitize_host_env ;;
    *) host_env=true ;;
  esac
  (source ../lib/sanitize.sh && "$host_env" "$build_dir" &&
     exec /usr/bin/python3 "$test" "$build_dir") 2>&1 | tee "$out"
  line=$(grep -E '^server-[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
  rm -f "$out"
  if [ -z "$line" ]; then echo "$test: no summary (crashed?)"; failed=$((failed + 1)); continue; fi
  passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
done
# The Node.js cassandra-driver: its packages are installed by `make deps` (npm ci).
if [ -d node/node_modules/cassandra-driver ]; then
  out=$(mktemp)
  node node/test_node_driver.js "$build_dir" 2>&1 | tee "$out"
  line=$(grep -E '^server-node: [0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
  rm -f "$out"
  if [ -z "$line" ]; then
    echo "test_node_driver.js: no summary (crashed?)"
    failed=$((failed + 1))
  else
    passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
  fi
else
  echo "FAIL node: tests/server/node/node_modules is missing; run make deps (npm ci)"
  failed=$((failed + 1))
fi
echo "server: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
