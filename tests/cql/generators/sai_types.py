#!/usr/bin/env python3
"""Writes tests/cql/sai_types.cql, ported from Apache Cassandra 5.0's DataModel-driven type tests
(test/unit/org/apache/cassandra/index/sai/cql/types: IndexingTypeSupport, DataSet, QuerySet and one
test class per type, IntTest ... InetTest): a table (pk int, ck int, value TYPE) with an SAI index
on value, 16 distinct values written (wide partitions of 4 rows, or one row per partition), then
NumericQuerySet (=, <, <=, >, >= on every value, the full range and random two-sided ranges) for
the ordered types, LiteralQuerySet (= on every value) for text, ascii, uuid, timeuuid, date,
timestamp and inet, BooleanQuerySet for boolean; decimals are also looked up written with more
digits (5E+3 = 5000.000: BigDecimal.compareTo). Three of IndexingTypeSupport's scenarios: MEMTABLE_QUERY,
SSTABLE_QUERY (a flush every 4 rows, then a compaction: COMPACTED_QUERY) and POST_BUILD_QUERY
(the index created after the flushes). Values are drawn from a fixed seed, as DataSet draws them.
tests/cql/sai_types_collections.cql ports types/collections the same way (CollectionDataSet with
CollectionQuerySet, FrozenCollectionQuerySet, MapKeys/MapValues/MapEntries/MultiMapQuerySet) for
lists, sets, maps and their frozen forms of int, text, decimal, varint, inet and uuid.

    python3 tests/cql/generators/sai_types.py              # rewrite both .cql files
    python3 tests/cql/generators/sai_types.py --check build
        # Cassandra's own assertion: runs the file and compares the rows of every query with the
        # rows the data set says (QuerySet's expected rows); prints the queries that differ.

Regenerate the .out files with UPDATE_GOLDEN=1 tests/cql/run_golden.sh build sai_types after --check
reports no difference.
"""
import datetime
import decimal
import os
import random
import struct
import subprocess
import sys
import tempfile
import uuid

N = 16
decimal.getcontext().prec = 2000


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def int_set(bits):
    def make(rng):
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 2
        return [rng.randint(lo, hi) for _ in range(N // 2)]
    return make


def varint_values(rng):
    return [rng.choice([-1, 1]) * rng.getrandbits(rng.randint(16, 512)) for _ in range(N // 2)]


def decimal_values(rng):
    return [decimal.Decimal(rng.randint(-1_000_000, 1_000_000)).scaleb(-rng.randint(-64, 64))
            for _ in range(N // 2)]


def float_values(rng):
    return [f32(rng.choice([-1, 1]) * rng.random()) for _ in range(N // 2)]


def double_values(rng):
    return [rng.choice([-1, 1]) * rng.random() for _ in range(N // 2)]


def numeric(make, inc):
    """NumericDataSet: pairs (v, v + 1) of distinct values, sorted."""
    def values(rng):
        out = []
        while len(out) < N:
            for v in make(rng):
                w = inc(v)
                if v not in out and w not in out and v != w and len(out) < N:
                    out += [v, w]
        return sorted(out)
    return values


def time_values(rng):
    out = set()
    while len(out) < N:
        out.add(((rng.randint(0, 23) * 60 + rng.randint(0, 59)) * 60 + rng.randint(0, 59))
                * 1_000_000_000 + rng.randint(0, 999_999_999))
    return sorted(out)


def inet_key(v):
    return v if len(v) == 16 else b"\0" * 10 + b"\xff\xff" + v


def inet_values(rng):
    out = []
    while len(out) < N:
        v = bytes(rng.getrandbits(8) for _ in range(rng.choice([4, 16])))
        if inet_key(v) not in map(inet_key, out):
            out.append(v)
    return sorted(out, key=inet_key)


def ascii_values(rng):
    chars = [chr(c) for c in range(32, 127)]
    return unique(rng, lambda: "".join(rng.choice(chars) for _ in range(rng.randint(8, 40))))


def text_values(rng):
    chars = [chr(c) for c in range(32, 127)] + list("éßøΩжא中文字😀𝄞")
    return unique(rng, lambda: "".join(rng.choice(chars) for _ in range(rng.randint(8, 40))))


def unique(rng, draw):
    out = []
    while len(out) < N:
        v = draw()
        if v not in out:
            out.append(v)
    return out


def date_values(rng):
    return unique(rng, lambda: rng.randint(0, (1 << 32) - 1))


def timestamp_values(rng):
    return unique(rng, lambda: rng.randint(0, 100 * 365 * 86400) * 1000)


def uuid_values(rng):
    return unique(rng, lambda: uuid.UUID(int=rng.getrandbits(128), version=4))


def timeuuid_values(rng):
    def draw():
        t = rng.getrandbits(60)
        return uuid.UUID(fields=(t & 0xFFFFFFFF, (t >> 32) & 0xFFFF, ((t >> 48) & 0x0FFF) | 0x1000,
                                 0x80 | rng.getrandbits(6), rng.getrandbits(8), rng.getrandbits(48)))
    return unique(rng, draw)


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def literal(type_name, v):
    if type_name in ("int", "bigint", "smallint", "tinyint", "varint", "date", "timestamp"):
        return str(v)
    if type_name == "decimal":
        return str(v) if "E" in str(v) or "." in str(v) else str(v) + ".0"
    if type_name in ("float", "double"):
        return repr(v)
    if type_name == "time":
        s, ns = divmod(v, 1_000_000_000)
        return f"'{s // 3600:02}:{s // 60 % 60:02}:{s % 60:02}.{ns:09}'"
    if type_name == "inet":
        import ipaddress
        return quote(str(ipaddress.ip_address(v)))
    if type_name in ("ascii", "text"):
        return quote(v)
    if type_name in ("uuid", "timeuuid"):
        return str(v)
    if type_name == "boolean":
        return "true" if v else "false"
    raise ValueError(type_name)


TYPES = [  # (type, values, query set); ordered types' values are sorted in CQL order
    ("int", numeric(int_set(32), lambda v: v + 1), "numeric"),
    ("bigint", numeric(int_set(64), lambda v: v + 1), "numeric"),
    ("smallint", numeric(int_set(16), lambda v: v + 1), "numeric"),
    ("tinyint", numeric(int_set(8), lambda v: v + 1), "numeric"),
    ("varint", numeric(varint_values, lambda v: v + 1), "numeric"),
    ("decimal", numeric(decimal_values, lambda v: v + 1), "numeric"),
    ("float", numeric(float_values, lambda v: f32(v + 1)), "numeric"),
    ("double", numeric(double_values, lambda v: v + 1), "numeric"),
    ("time", time_values, "numeric"),
    # InetTest runs NumericQuerySet; ranges that span IPv4 and IPv6 follow the inet type's order
    # here (README, differences from Cassandra), so only its equalities are ported.
    ("inet", inet_values, "literal"),
    ("ascii", ascii_values, "literal"),
    ("text", text_values, "literal"),
    ("date", date_values, "literal"),
    ("timestamp", timestamp_values, "literal"),
    ("uuid", uuid_values, "literal"),
    ("timeuuid", timeuuid_values, "literal"),
    ("boolean", lambda rng: [rng.random() < 0.5 for _ in range(N)], "boolean"),
]
SCENARIOS = [("MEMTABLE_QUERY", True), ("COMPACTED_QUERY", False), ("POST_BUILD_QUERY", True)]
CLASS = {"int": "IntTest", "bigint": "BigintTest", "smallint": "SmallintTest",
         "tinyint": "TinyintTest", "varint": "VarintTest", "decimal": "DecimalTest",
         "float": "FloatTest", "double": "DoubleTest", "time": "TimeTest", "inet": "InetTest",
         "ascii": "AsciiTest", "text": "TextTest", "date": "DateTest",
         "timestamp": "TimestampTest", "uuid": "UuidTest", "timeuuid": "TimeuuidTest",
         "boolean": "BooleanTest"}


def generate():
    """The statements, and for each SELECT the (pk, ck) rows QuerySet expects."""
    out = ["CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};",
           "USE ks;"]
    expected = []
    for type_name, make, query_set in TYPES:
        rng = random.Random("sai_types " + type_name)
        values = make(rng)
        for scenario, wide in SCENARIOS:
            table = f"{type_name}_{scenario.split('_')[0].lower()}"
            rows = [((1 + i // 4, i % 4) if wide else (1 + i, 0)) for i in range(N)]
            out.append(f"-- {CLASS[type_name]} ({'wide' if wide else 'narrow'} partitions, {scenario})")
            out.append(f"CREATE TABLE {table} (pk int, ck int, value {type_name}, PRIMARY KEY(pk, ck));")
            index = f"CREATE CUSTOM INDEX ON {table}(value) USING 'StorageAttachedIndex';"
            if scenario != "POST_BUILD_QUERY":
                out.append(index)
            for i, (pk, ck) in enumerate(rows):
                out.append(f"INSERT INTO {table} (pk, ck, value) VALUES ({pk}, {ck}, "
                           f"{literal(type_name, values[i])});")
                if scenario != "MEMTABLE_QUERY" and i % 4 == 3:
                    out.append("FLUSH;")
            if scenario == "COMPACTED_QUERY":
                out.append(f"COMPACT {table};")
            if scenario == "POST_BUILD_QUERY":
                out.append(index)

            def select(where, picked):
                out.append(f"SELECT pk, ck FROM {table} WHERE {where};")
                expected.append(sorted(rows[i] for i in picked))

            lit = [literal(type_name, v) for v in values]
            if query_set == "boolean":
                for v in values:
                    select(f"value = {literal(type_name, v)}",
                           [i for i in range(N) if values[i] == v])
                continue
            for i in range(N):
                select(f"value = {lit[i]}", [i])
                if type_name == "decimal":  # the same value with more digits (compareTo equal)
                    select(f"value = {decimal.Decimal(values[i]).quantize(decimal.Decimal(1).scaleb(values[i].as_tuple().exponent - 3))}", [i])
            if query_set != "numeric" or scenario == "POST_BUILD_QUERY":
                continue
            for i in range(N):
                select(f"value > {lit[i]}", range(i + 1, N))
                select(f"value >= {lit[i]}", range(i, N))
                select(f"value < {lit[i]}", range(0, i))
                select(f"value <= {lit[i]}", range(0, i + 1))
            select(f"value >= {lit[0]} AND value <= {lit[N - 1]}", range(N))
            for _ in range(N // 4):
                a, b = sorted(rng.sample(range(N), 2))
                select(f"value > {lit[a]} AND value < {lit[b]}", range(a + 1, b))
                select(f"value >= {lit[a]} AND value < {lit[b]}", range(a, b))
                select(f"value > {lit[a]} AND value <= {lit[b]}", range(a + 1, b + 1))
                select(f"value >= {lit[a]} AND value <= {lit[b]}", range(a, b + 1))
    return out, expected


ELEMENTS = ["int", "text", "decimal", "varint", "inet", "uuid"]
COLLECTIONS = [  # (kind, CQL type pattern, index targets, Java test class pattern)
    ("list", "list<{}>", ["value"], "List{}Test"),
    ("set", "set<{}>", ["value"], "Set{}Test"),
    ("frozen_list", "frozen<list<{}>>", ["FULL(value)"], "FrozenList{}Test"),
    ("frozen_set", "frozen<set<{}>>", ["FULL(value)"], "FrozenSet{}Test"),
    ("map", "map<{0}, {0}>", ["value"], "Map{}Test"),
    ("map_keys", "map<{0}, {0}>", ["KEYS(value)"], "MapKeys{}Test"),
    ("map_values", "map<{0}, {0}>", ["VALUES(value)"], "MapValues{}Test"),
    ("map_entries", "map<{0}, {0}>", ["ENTRIES(value)"], "MapEntries{}Test"),
    ("frozen_map", "frozen<map<{0}, {0}>>", ["FULL(value)"], "FrozenMap{}Test"),
    ("multimap", "map<{0}, {0}>", ["KEYS(value)", "VALUES(value)", "ENTRIES(value)"],
     "MultiMap{}Test"),
]


def generate_collections():
    """CollectionDataSet and its query sets: each row's value holds 2 to 7 of 16 element values."""
    out = ["CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};",
           "USE ks;"]
    expected = []
    makers = dict((t, m) for t, m, _ in TYPES)
    for element in ELEMENTS:
        elements = makers[element](random.Random("sai_types " + element))
        lit = lambda v: literal(element, v)
        # inet: 4-byte and 16-byte addresses as Python compares them (bytes), unique either way
        for kind, pattern, targets, java in COLLECTIONS:
            rng = random.Random(f"sai_types {kind} {element}")
            is_map = kind.endswith("map") or kind.startswith("map")
            rows_values = []
            for _ in range(N):
                picks = [rng.randrange(N) for _ in range(rng.randint(2, 7))]
                if is_map:
                    rows_values.append(dict((p, rng.randrange(N)) for p in picks))
                elif kind.endswith("set"):
                    rows_values.append(sorted(set(picks)))  # indexes: CQL order = element order
                else:
                    rows_values.append(picks)

            def cql(v):
                if is_map:
                    return "{" + ", ".join(f"{lit(elements[k])}: {lit(elements[x])}"
                                           for k, x in v.items()) + "}"
                body = ", ".join(lit(elements[i]) for i in v)
                return "{" + body + "}" if kind.endswith("set") else "[" + body + "]"

            for scenario, wide in SCENARIOS[:2]:
                table = f"{kind}_{element}_{scenario.split('_')[0].lower()}"
                rows = [((1 + i // 4, i % 4) if wide else (1 + i, 0)) for i in range(N)]
                out.append(f"-- {java.format(element.capitalize())} ({'wide' if wide else 'narrow'} "
                           f"partitions, {scenario})")
                out.append(f"CREATE TABLE {table} (pk int, ck int, value {pattern.format(element)}, "
                           "PRIMARY KEY(pk, ck));")
                for target in targets:
                    out.append(f"CREATE CUSTOM INDEX ON {table}({target}) USING 'StorageAttachedIndex';")
                for i, (pk, ck) in enumerate(rows):
                    out.append(f"INSERT INTO {table} (pk, ck, value) VALUES ({pk}, {ck}, "
                               f"{cql(rows_values[i])});")
                    if scenario != "MEMTABLE_QUERY" and i % 4 == 3:
                        out.append("FLUSH;")
                if scenario == "COMPACTED_QUERY":
                    out.append(f"COMPACT {table};")

                def select(where, test):
                    out.append(f"SELECT pk, ck FROM {table} WHERE {where};")
                    expected.append(sorted(rows[i] for i in range(N) if test(rows_values[i])))

                if kind.startswith("frozen"):  # FrozenCollectionQuerySet
                    for v in rows_values:
                        select(f"value = {cql(v)}", lambda x, v=v: x == v)
                    continue
                if kind in ("map", "map_values"):  # MapValuesQuerySet
                    for e in range(N):
                        select(f"value CONTAINS {lit(elements[e])}", lambda x, e=e: e in x.values())
                    for _ in range(N // 4):
                        m = rows_values[rng.randrange(N)]
                        a, b = rng.choice(list(m.values())), rng.choice(list(m.values()))
                        select(f"value CONTAINS {lit(elements[a])} AND value CONTAINS "
                               f"{lit(elements[b])} ALLOW FILTERING",
                               lambda x, a=a, b=b: a in x.values() and b in x.values())
                    continue
                if kind in ("map_keys", "multimap"):  # MapKeysQuerySet
                    for e in range(N):
                        select(f"value CONTAINS KEY {lit(elements[e])}", lambda x, e=e: e in x)
                    for _ in range(N // 4):
                        m = rows_values[rng.randrange(N)]
                        a, b = rng.choice(list(m)), rng.choice(list(m))
                        select(f"value CONTAINS KEY {lit(elements[a])} AND value CONTAINS KEY "
                               f"{lit(elements[b])} ALLOW FILTERING",
                               lambda x, a=a, b=b: a in x and b in x)
                if kind in ("map_entries", "multimap"):  # MapEntriesQuerySet
                    for v in rows_values:
                        k = next(iter(v))
                        select(f"value[{lit(elements[k])}] = {lit(elements[v[k]])}",
                               lambda x, k=k, e=v[k]: x.get(k) == e)
                    for _ in range(N // 4):
                        m = rows_values[rng.randrange(N)]
                        a, b = rng.choice(list(m)), rng.choice(list(m))
                        select(f"value[{lit(elements[a])}] = {lit(elements[m[a]])} AND "
                               f"value[{lit(elements[b])}] = {lit(elements[m[b]])} ALLOW FILTERING",
                               lambda x, a=a, b=b, m=m: x.get(a) == m[a] and x.get(b) == m[b])
                if kind == "multimap":  # MultiMapQuerySet adds the values
                    for e in range(N):
                        select(f"value CONTAINS {lit(elements[e])}", lambda x, e=e: e in x.values())
                if is_map:
                    continue
                for e in range(N):  # CollectionQuerySet
                    select(f"value CONTAINS {lit(elements[e])}", lambda x, e=e: e in x)
                for _ in range(N // 4):
                    v = rows_values[rng.randrange(N)]
                    a, b = v[0], v[1] if len(v) > 1 else v[0]
                    select(f"value CONTAINS {lit(elements[a])} AND value CONTAINS "
                           f"{lit(elements[b])} ALLOW FILTERING",
                           lambda x, a=a, b=b: a in x and b in x)
    return out, expected


def check(build):
    return max(check_one(build, generate), check_one(build, generate_collections))


def check_one(build, generator):
    lines, expected = generator()
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, "t.cql")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\n")
        run = subprocess.run([os.path.join(build, "cassette"), os.path.join(work, "store"),
                              "--keep-going", "-f", script], capture_output=True, text=True)
    if run.stderr.strip():
        print(run.stderr)
    results, rows = [], None
    for line in run.stdout.split("\n"):
        if line.startswith(" pk | ck"):
            rows = []
        elif rows is not None and "|" in line:
            pk, ck = line.split("|")
            rows.append((int(pk), int(ck)))
        elif rows is not None and line.startswith("("):
            results.append(sorted(rows))
            rows = None
    selects = [l for l in lines if l.startswith("SELECT")]
    bad = 0
    if len(results) != len(selects):
        print(f"{len(results)} results for {len(selects)} queries")
        return 1
    for query, want, got in zip(selects, expected, results):
        if want != got:
            bad += 1
            print(f"DIFFERENT: {query}\n  expected {want}\n  got      {got}")
    print(f"{len(selects)} queries, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    here = os.path.dirname(os.path.abspath(__file__))
    for name, generator, what in [("sai_types", generate, "one test class per type"),
                                  ("sai_types_collections", generate_collections,
                                   "types/collections: one test class per collection and element")]:
        lines, _ = generator()
        header = ["-- Generated by tests/cql/generators/sai_types.py (edit that, not this): Cassandra 5.0's",
                  f"-- DataModel-driven SAI type tests (index/sai/cql/types), {what}."]
        with open(os.path.join(here, "..", name + ".cql"), "w") as f:
            f.write("\n".join(header + lines) + "\n")
