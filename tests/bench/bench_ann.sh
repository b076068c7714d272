#!/usr/bin/env bash
# ANN top-10 over ANN_BENCH_ROWS (default 100000) random ANN_BENCH_DIM-dimension (default 128)
# float vectors (`make bench`): ANN_BENCH_QUERIES (default 20) queries of
#   SELECT id FROM bench.items ORDER BY v ANN OF [...] LIMIT 10
# through the `cassette` shell, against a brute-force top-10 computed here in Python (double
# precision, cosine): recall@10 and the shell's queries per second. Cassette's ANN search is
# exact today (engine/cql/select_ann.h), so recall is 1.0 and QPS is a full scan's.
#
#   tests/bench/bench_ann.sh BUILD_DIR
#
# Prints "# ..." detail lines and `RESULT ann-recall@10 exact <recall>` and
# `RESULT ann-qps exact <queries per second>`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ANN_BENCH_ROWS=${ANN_BENCH_ROWS:-100000} ANN_BENCH_DIM=${ANN_BENCH_DIM:-128} \
ANN_BENCH_QUERIES=${ANN_BENCH_QUERIES:-20} \
  python3 - "$build_dir/cassette" "$work" <<'PY'
import math, os, random, subprocess, sys, time
cassette, work = sys.argv[1], sys.argv[2]
rows, dim, queries = (int(os.environ[k]) for k in ("ANN_BENCH_ROWS", "ANN_BENCH_DIM",
                                                      "ANN_BENCH_QUERIES"))
rng = random.Random(42)
def vec():
    return [round(rng.uniform(-1, 1), 6) for _ in range(dim)]
data = [vec() for _ in range(rows)]
with open(f"{work}/items.csv", "w") as f:
    for i, v in enumerate(data):
        f.write(f'{i},"[{", ".join(map(str, v))}]"\n')
store = f"{work}/store"
setup = (f"CREATE KEYSPACE bench WITH replication = {{'class': 'SimpleStrategy', "
         f"'replication_factor': 1}}; CREATE TABLE bench.items (id int PRIMARY KEY, "
         f"v vector<float, {dim}>); CREATE CUSTOM INDEX ON bench.items (v) USING "
         f"'StorageAttachedIndex'; COPY bench.items (id, v) FROM '{work}/items.csv';")
t0 = time.time()
subprocess.run([cassette, store, "-e", setup], check=True, capture_output=True)
print(f"# loaded {rows} vectors of {dim} dimensions in {time.time() - t0:.1f} s")
def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
qs = [vec() for _ in range(queries)]
script = "".join(f"SELECT id FROM bench.items ORDER BY v ANN OF [{', '.join(map(str, q))}] "
                 f"LIMIT 10;" for q in qs)
t0 = time.time()
out = subprocess.run([cassette, store, "--format", "csv", "-e", script], check=True,
                     capture_output=True, text=True).stdout
seconds = time.time() - t0
ids = [int(line) for line in out.split() if line.strip().isdigit()]
hits = 0
for n, q in enumerate(qs):
    truth = sorted(range(rows), key=lambda i: -cosine(q, data[i]))[:10]
    hits += len(set(truth) & set(ids[n * 10:(n + 1) * 10]))
print(f"# {queries} queries in {seconds:.2f} s (one shell process, store opened once)")
print(f"RESULT ann-recall@10 exact {hits / (10 * queries):.3f}")
print(f"RESULT ann-qps exact {queries / seconds:.2f}")
PY
