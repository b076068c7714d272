#!/usr/bin/env bash
# ANN top-10 over ANN_BENCH_ROWS (default 100000) ANN_BENCH_DIM-dimension (default 128) float
# vectors (`make bench`), for each distribution of ANN_BENCH_DATA (default "clustered uniform":
# clustered around 100 centres, as embeddings of related items gather, and independent uniform
# coordinates, which have no neighbourhoods for a graph to follow), loaded by the `cassette`
# shell's COPY and FLUSHed into an SSTable: ANN_BENCH_QUERIES (default 20) queries of
#   SELECT id FROM bench.items ORDER BY v ANN OF [...] LIMIT 10
# answered by the ANN index (an HNSW graph per SSTable and the memtable, engine/cql/ann_index.h),
# and the same queries with `WHERE token(id) > <min + 1>` added, which the index does not serve:
# Cassette's exact scan of every row (the brute force). Recall@10 of each against a top-10
# computed here in Python (double precision, cosine), and each one's queries per second, timed
# inside one process that runs them through SQLite's cql_rows (Debian's python3, whose sqlite3
# module loads extensions). A first process opens the store right after the FLUSH: its first
# query finds the SSTable without a graph, scores it exactly and queues the graph's build on the
# process's builder thread (timed apart: the first-query latency after a flush); the process then
# waits for the graphs' components to appear on disk (timed: the build, in the background), and
# its other queries, answered by the graph it holds, give the recall and the rate. A second,
# fresh process loads the graph: its first query is timed apart too (a new process's
# first-query latency). ANN_BENCH_OPTIONS adds index options, e.g.
# "'optimize_for': 'recall'" (the graph parameters are refused, as Cassandra 5.0
# refuses them by default).
#
#   tests/bench/bench_ann.sh BUILD_DIR
#
# Prints "# ..." detail lines and, for each distribution D, RESULT lines: ann-recall@10-D and
# ann-qps-D of `hnsw`, `exact` and `sqlite-vec` (npm's sqlite-vec 0.1.9, installed into a
# temporary directory, or SQLITE_VEC=path of vec0.so; Debian has no package of it),
# ann-first-query-after-flush-seconds-D, ann-graph-build-seconds-D and
# ann-first-query-seconds-D (graph loaded by a fresh process) of `hnsw`; and for a short-lived
# process (one `cassette -e` ANN query on a copy of the flushed store, timed from start to exit)
# ann-short-lived-query-seconds-D before (`exact`) and after (`hnsw`) the shell's BUILD INDEXES,
# and ann-build-indexes-seconds-D, that command's time.
#
# Then a compaction: a second SSTable (ANN_BENCH_ROWS/40 rows overwritten, as many deleted,
# ANN_BENCH_ROWS/10 new ones), its graph built (BUILD INDEXES), and the table compacted by a
# process that stays (SQLite's cql_compact()): its first query right after (the output scored
# exactly) and the time until the output's graph is on disk, then the recall of the queries on
# the changed data. `merge`: the output's graph merged from the first SSTable's in the background
# (the compaction keeps the graphs); `rebuild`: the same on a copy whose inputs' graphs were
# removed, so the first query queues the build from scratch (what a compaction cost before).
# RESULT ann-compaction-graph-ready-seconds-D and ann-compaction-recall@10-D of each, and
# ann-compaction-first-query-seconds-D.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ANN_BENCH_ROWS=${ANN_BENCH_ROWS:-100000} ANN_BENCH_DIM=${ANN_BENCH_DIM:-128} \
ANN_BENCH_QUERIES=${ANN_BENCH_QUERIES:-20} ANN_BENCH_DATA=${ANN_BENCH_DATA:-clustered uniform} \
  python3 - "$build_dir/cassette" "$work" <<'PY'
import math, os, random, shutil, subprocess, sys, time
cassette, work = sys.argv[1], sys.argv[2]
rows, dim, queries = (int(os.environ[k]) for k in ("ANN_BENCH_ROWS", "ANN_BENCH_DIM",
                                                      "ANN_BENCH_QUERIES"))
options = os.environ.get("ANN_BENCH_OPTIONS", "")
vec0 = os.environ.get("SQLITE_VEC", "")
if not vec0:
    npm_dir = f"{work}/npm"
    os.makedirs(npm_dir)
    r = subprocess.run(["npm", "install", "--prefix", npm_dir, "--no-save", "--no-audit",
                        "--no-fund", "sqlite-vec@0.1.9"], capture_output=True, text=True)
    candidate = f"{npm_dir}/node_modules/sqlite-vec-linux-x64/vec0.so"
    vec0 = candidate if r.returncode == 0 and os.path.exists(candidate) else ""
# Each run is one process (Debian's Python, whose sqlite3 module loads extensions): the store
# opened through cassette.so's cql_open(), one first query (timed apart: the graph's build or load),
# then the queries through cql_rows, each timed in that process.
RUNNER = """
import glob, json, sqlite3, sys, time
ext, store, where, wait = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5] == 'wait'
qs = open(sys.argv[4]).read().split(chr(10))[:-1]
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(ext)
db.execute('SELECT cql_open(?)', (store,)).fetchall()
def ann(q):
    return [json.loads(r[0])['id'] for r in db.execute(
        'SELECT json FROM cql_rows(?)',
        (f'SELECT id FROM bench.items {where}ORDER BY v ANN OF {q} LIMIT 10',))]
t0 = time.time()
compact = len(sys.argv) > 6 and sys.argv[6] == 'compact'
if compact:
    db.execute("SELECT cql_compact('bench.items')").fetchall()
    print('compacted', time.time() - t0)
    t0 = time.time()
ann(qs[0])
print('warm', time.time() - t0)
if compact:
    wait = True
t0 = time.time()
def unbuilt():  # the table's SSTables (those named like the first graph's) without a graph yet
    metas = glob.glob(store + '/data/*.sst.ann.*.meta')
    if not metas:
        return True
    table = metas[0].rsplit('/', 1)[1].split('-', 1)[0]
    ssts = glob.glob(store + '/data/' + table + '-*.sst')
    return any(not glob.glob(s + '.ann.*.meta') for s in ssts)
while wait and unbuilt():
    time.sleep(0.05)
print('built', time.time() - t0)
t0 = time.time()
for q in qs[1:]:
    print(*ann(q))
print('seconds', time.time() - t0)
"""
VEC_RUNNER = """
import sqlite3, sys, time
vec0, work, dim = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = sqlite3.connect(':memory:')
db.enable_load_extension(True)
db.load_extension(vec0[:-3])
db.execute(f'CREATE VIRTUAL TABLE items USING vec0(v float[{dim}] distance_metric=cosine)')
with open(f'{work}/items.csv') as f:
    db.executemany('INSERT INTO items(rowid, v) VALUES (?, ?)',
                   ((int(l.split(',', 1)[0]), l.split(',', 1)[1].strip().strip('"')) for l in f))
db.commit()
qs = open(f'{work}/queries.txt').read().split(chr(10))[:-1]
t0 = time.time()
for q in qs:
    for (rowid,) in db.execute('SELECT rowid FROM items WHERE v MATCH ? AND k = 10', (q,)):
        print(rowid)
print('seconds', time.time() - t0)
"""
def bench(distribution):
    uniform = distribution == "uniform"
    store = f"{work}/store-{distribution}"
    rng = random.Random(42)
    centres = [[rng.uniform(-1, 1) for _ in range(dim)] for _ in range(100)]
    def vec():
        if uniform:
            return [round(rng.uniform(-1, 1), 6) for _ in range(dim)]
        c = rng.choice(centres)
        return [round(x + rng.gauss(0, 0.3), 6) for x in c]
    data = [vec() for _ in range(rows)]
    with open(f"{work}/items.csv", "w") as f:
        for i, v in enumerate(data):
            f.write(f'{i},"[{", ".join(map(str, v))}]"\n')
    setup = (f"CREATE KEYSPACE bench WITH replication = {{'class': 'SimpleStrategy', "
             f"'replication_factor': 1}}; CREATE TABLE bench.items (id int PRIMARY KEY, "
             f"v vector<float, {dim}>); CREATE CUSTOM INDEX ON bench.items (v) USING "
             f"'StorageAttachedIndex'{' WITH OPTIONS = {' + options + '}' if options else ''}; COPY bench.items (id, v) FROM '{work}/items.csv';")
    t0 = time.time()
    subprocess.run([cassette, store, "-e", setup + " FLUSH;"], check=True, capture_output=True)
    print(f"# {'uniform' if uniform else 'clustered'} data (ANN_BENCH_DATA)")
    print(f"# loaded {rows} vectors of {dim} dimensions in {time.time() - t0:.1f} s")
    def cosine(a, b):
        dot = sum(x * y for x, y in zip(a, b))
        return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    qs = [vec() for _ in range(queries)]
    def run(where, wait="", on=None, compact=False):
        with open(f"{work}/run_queries.txt", "w") as f:
            for q in [vec()] + qs:
                f.write(f"[{', '.join(map(str, q))}]\n")
        out = subprocess.run(["/usr/bin/python3", "-c", RUNNER, f"{os.path.dirname(cassette)}/cassette",
                              on or store, where, f"{work}/run_queries.txt", wait] +
                             (["compact"] if compact else []), check=True,
                             capture_output=True, text=True).stdout.split("\n")
        if compact:
            out = out[1:]
        warm = float(out[0].split()[1])
        built = float(out[1].split()[1])
        seconds = float(out[-2].split()[1])
        ids = [int(x) for line in out[2:-2] for x in line.split()]
        return ids, warm, seconds, built
    scores = [[cosine(q, v) for v in data] for q in qs]
    truth = [sorted(range(rows), key=lambda i: -s[i])[:10] for s in scores]
    def recall(ids, truth=truth):
        return sum(len(set(t) & set(ids[n * 10:(n + 1) * 10])) for n, t in enumerate(truth)) / (10 * queries)
    d = distribution
    # A short-lived process (one `cassette -e` ANN query, timed from its start to its exit) on a
    # copy of the freshly flushed store, before and after the shell's BUILD INDEXES: before, it
    # scores the SSTable exactly (the build its query queues dies with it); after, it loads the
    # graph BUILD INDEXES saved.
    short = f"{store}-short"
    shutil.copytree(store, short)
    ann_cql = (f"SELECT id FROM bench.items ORDER BY v ANN OF [{', '.join(map(str, qs[0]))}] "
               f"LIMIT 10;")
    def timed(statement):
        t0 = time.time()
        subprocess.run([cassette, short, "-e", statement], check=True, capture_output=True)
        return time.time() - t0
    short_before = timed(ann_cql)
    build_command = timed("BUILD INDEXES;")
    short_after = timed(ann_cql)
    shutil.rmtree(short)
    # the first process answers exactly while it builds the graph (and saves it), then from the
    # graph; a fresh one loads it
    built_ids, after_flush, built_seconds, build = run("", "wait")
    ann_ids, first, ann_seconds, _ = run("")
    exact_ids, _, exact_seconds, _ = run("WHERE token(id) > -9223372036854775807 ")
    print(f"# hnsw: first query after the flush (no graph yet: the SSTable scored exactly, the "
          f"build queued) {after_flush:.3f} s; graph built and saved {build:.1f} s later; then "
          f"{queries} queries in {built_seconds:.2f} s (recall {recall(built_ids):.3f})")
    print(f"# hnsw: first query of a fresh process (graph loaded) {first:.3f} s, then {queries} "
          f"queries in {ann_seconds:.2f} s")
    print(f"# exact: {queries} queries in {exact_seconds:.2f} s (one process each, store opened once, queries through SQLite's cql_rows)")
    print(f"# short-lived process (one `cassette -e` ANN query, start to exit): "
          f"{short_before:.3f} s before BUILD INDEXES (the SSTable scored exactly), "
          f"{short_after:.3f} s after it (graph loaded); `BUILD INDEXES;` took {build_command:.1f} s")
    print(f"RESULT ann-short-lived-query-seconds-{d} exact {short_before:.3f}")
    print(f"RESULT ann-short-lived-query-seconds-{d} hnsw {short_after:.3f}")
    print(f"RESULT ann-build-indexes-seconds-{d} hnsw {build_command:.1f}")
    print(f"RESULT ann-first-query-after-flush-seconds-{d} hnsw {after_flush:.3f}")
    print(f"RESULT ann-graph-build-seconds-{d} hnsw {build:.1f}")
    print(f"RESULT ann-first-query-seconds-{d} hnsw {first:.3f}")
    print(f"RESULT ann-recall@10-{d} hnsw {recall(ann_ids):.3f}")
    print(f"RESULT ann-recall@10-{d} exact {recall(exact_ids):.3f}")
    print(f"RESULT ann-qps-{d} hnsw {queries / ann_seconds:.2f}")
    print(f"RESULT ann-qps-{d} exact {queries / exact_seconds:.2f}")

    # The compaction step: rows changed in a second SSTable with its graph, then compacted.
    changes = rng.sample(range(rows), rows // 20)
    overwritten, deleted = changes[:rows // 40], changes[rows // 40:]
    added = list(range(rows, rows + rows // 10))
    with open(f"{work}/changes.csv", "w") as f:
        for i in overwritten + added:
            v = vec()
            if i < rows:
                data[i] = v
            else:
                data.append(v)
            f.write(f'{i},"[{", ".join(map(str, v))}]"\n')
    with open(f"{work}/changes.cql", "w") as f:
        f.write(f"COPY bench.items (id, v) FROM '{work}/changes.csv';\n")
        for i in deleted:
            f.write(f"DELETE FROM bench.items WHERE id = {i};\n")
    t0 = time.time()
    subprocess.run([cassette, store, "-e", f"SOURCE '{work}/changes.cql'; BUILD INDEXES;"],
                   check=True, capture_output=True)
    print(f"# compaction step: {len(overwritten)} rows overwritten, {len(deleted)} deleted, "
          f"{len(added)} added, flushed and their graph built in {time.time() - t0:.1f} s")
    gone = set(deleted)
    for n, q in enumerate(qs):
        s = scores[n]
        for i in overwritten:
            s[i] = cosine(q, data[i])
        for i in deleted:
            s[i] = -2.0
        s.extend(cosine(q, data[i]) for i in added)
    live = [i for i in range(len(data)) if i not in gone]
    changed_truth = [sorted(live, key=lambda i: -s[i])[:10] for s in scores]
    rebuild_store = f"{store}-rebuild"
    shutil.copytree(store, rebuild_store)
    for name in os.listdir(f"{rebuild_store}/data"):
        if ".sst.ann." in name:
            os.remove(f"{rebuild_store}/data/{name}")
    for kind, on in (("merge", store), ("rebuild", rebuild_store)):
        ids, first_query, _, wait = run("", on=on, compact=True)
        ready = first_query + wait  # since the compaction's end
        print(f"# compaction ({kind}): first query after it {first_query:.3f} s (the output "
              f"scored exactly), its graph ready {ready:.1f} s after the compaction, recall "
              f"{recall(ids, changed_truth):.3f}")
        print(f"RESULT ann-compaction-first-query-seconds-{d} {kind} {first_query:.3f}")
        print(f"RESULT ann-compaction-graph-ready-seconds-{d} {kind} {ready:.1f}")
        print(f"RESULT ann-compaction-recall@10-{d} {kind} {recall(ids, changed_truth):.3f}")
    shutil.rmtree(rebuild_store)

    # sqlite-vec (npm's sqlite-vec, which ships its loadable vec0.so; Debian has no package): a vec0
    # table with cosine distance, its brute-force KNN in Debian's Python (whose sqlite3 module loads
    # extensions), on the same vectors and queries
    if not vec0 or not os.path.exists("/usr/bin/python3"):
        print("# sqlite-vec: not available (npm install sqlite-vec failed, or no /usr/bin/python3)")
        return
    with open(f"{work}/queries.txt", "w") as f:
        for q in qs:
            f.write(f"[{', '.join(map(str, q))}]\n")
    out = subprocess.run(["/usr/bin/python3", "-c", VEC_RUNNER, vec0, work, str(dim)], check=True,
                         capture_output=True, text=True).stdout.split()
    vec_seconds = float(out[-1])
    vec_ids = [int(x) for x in out[:-2]]
    print(f"# sqlite-vec {os.path.basename(os.path.dirname(vec0))}: {queries} queries in "
          f"{vec_seconds:.2f} s (in process, brute force)")
    print(f"RESULT ann-recall@10-{d} sqlite-vec {recall(vec_ids):.3f}")
    print(f"RESULT ann-qps-{d} sqlite-vec {queries / vec_seconds:.2f}")

for distribution in os.environ["ANN_BENCH_DATA"].split():
    bench(distribution)
PY
