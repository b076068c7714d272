#!/usr/bin/env bash
# Runs the DataStax Python driver's own integration tests against `cassette serve`: a local
# tool, not part of `make test` (it needs the driver's repository). What it found is kept as
# cases in test_driver_suite.py.
#
#   tests/server/python_driver_suite.sh BUILD_DIR DRIVER_CHECKOUT [PROTOCOL] MODULE...
#   e.g. tests/server/python_driver_suite.sh build ~/python-driver 4 \
#          standard/test_types.py standard/test_query.py cqlengine
#
# DRIVER_CHECKOUT: a clone of datastax/python-driver at the tag of the installed driver
# (Debian's python3-cassandra: 3.25.0). Needs python3-pytest, python3-packaging, python3-mock
# and python3-tz (apt). The suite starts its clusters with ccm: here a stand-in ccmlib makes
# it skip that (USE_CASS_EXTERNAL), and a stand-in greplin.scales serves metrics_enabled=True.
# The tests' TestCluster is made to use PROTOCOL (default 5) rather than the newest the
# Cassandra version allows. Each MODULE runs against a fresh server on 127.0.0.5:9042.
# Expect failures that are not Cassette's: tests that assume three nodes (token maps,
# replicas, host counts), ccm, DSE, UDFs (not supported), v5-only features on v3/v4.
set -uo pipefail
build_dir=$(realpath "${1:?BUILD_DIR}")
checkout=$(realpath "${2:?DRIVER_CHECKOUT}")
shift 2
protocol=5
if [[ ${1:-} =~ ^[345]$ ]]; then protocol=$1; shift; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/shim/ccmlib" "$work/shim/greplin"
touch "$work/shim/ccmlib/__init__.py" "$work/shim/ccmlib/common.py" "$work/shim/greplin/__init__.py"
echo "class DseCluster: pass" > "$work/shim/ccmlib/dse_cluster.py"
echo "class Cluster: pass" > "$work/shim/ccmlib/cluster.py"
echo "class ClusterFactory: pass" > "$work/shim/ccmlib/cluster_factory.py"
cat > "$work/shim/greplin/scales.py" <<'PY'
"""Just enough of greplin.scales for cassandra.metrics."""
import contextlib


class _Pmf(dict):
    def __init__(self):
        super().__init__(count=0)

    def addValue(self, value):
        self["count"] += 1

    def time(self):
        return contextlib.nullcontext()


class PmfStat:
    def __init__(self, name):
        self.name, self.make = name, _Pmf


class IntStat:
    def __init__(self, name):
        self.name, self.make = name, int


class Stat:
    def __init__(self, name, func=None):
        self.name, self.func = name, func


class _Stats:
    stats = {}


def collection(name, *stats):
    cls = type("Collection", (), {})
    obj = cls()
    for stat in stats:
        if isinstance(stat, Stat):
            setattr(cls, stat.name, property(lambda self, f=stat.func: f() if f else None))
        else:
            setattr(obj, stat.name, stat.make())
    _Stats.stats[name] = obj
    return obj


def getStats():
    return _Stats.stats


def init(*args, **kwargs):
    pass
PY

# A copy of the tests: TestCluster on PROTOCOL, and cqlengine's package setup run by pytest.
cp -r "$checkout/tests" "$work/tests"
sed -i 's/^    DEFAULT_PROTOCOL_VERSION = default_protocol_version/    DEFAULT_PROTOCOL_VERSION = PROTOCOL_VERSION/' \
  "$work/tests/integration/__init__.py"
printf '\nsetup_module = setup_package\n' >> "$work/tests/integration/cqlengine/__init__.py"

status=0
for module in "$@"; do
  read -ra words <<< "$module"  # a path, then pytest options: "cqlengine --ignore=..."
  store=$(mktemp -d)
  "$build_dir/cassette" serve "$store/db" --listen 127.0.0.5:9042 --sync off > "$store/out" 2>&1 &
  server=$!
  sleep 0.5
  echo "=== $module (protocol v$protocol)"
  (cd "$work" && PYTHONPATH="$work/shim" USE_CASS_EXTERNAL=1 CLUSTER_IP=127.0.0.5 \
     CASSANDRA_VERSION=4.0.0 PROTOCOL_VERSION=$protocol EVENT_LOOP_MANAGER=asyncore \
     timeout 900 /usr/bin/python3 -m pytest -q -p no:cacheprovider -rfE \
       "tests/integration/${words[0]}" "${words[@]:1}") | grep -E '^(FAILED|ERROR) |passed|failed' || status=1
  kill "$server"
  wait "$server"
  rm -rf "$store"
done
exit $status
