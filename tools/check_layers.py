#!/usr/bin/env python3
"""Checks the engine's layering (docs/ARCHITECTURE.md, "Layers"); run by `make test`.

LAYERS below is the layer table: each folder of engine/, the layers it builds on and its public
headers. The check fails when
  - a folder under engine/ is not in the table, a listed header does not exist, or the layers
    form a cycle;
  - a file of a layer includes a header of a layer it does not build on (upward or sideways),
    or an internal header of another layer;
  - a public header includes a header that is not public (a host could not use it);
  - a host (ext/*), an example or a benchmark includes an engine header that is not public, or
    another host's folder (code two hosts share lives in ext/pg_common, a library both link).
tests/unit and tests/fuzz test the machinery and may include anything.

Usage: tools/check_layers.py [REPO]. Prints one line per violation and, last,
"layers: N passed, M failed" (one case per file checked).

The build reads the same table: `tools/check_layers.py --cmake` prints it as CMake variables,
from which the root CMakeLists.txt makes one static library per layer, linked to the layers it
builds on, and the include tree of public headers that hosts compile against. So a new folder
under engine/ is one line in LAYERS, for this check and for the build alike.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:engine|ext)/[^"]+)"', re.M)
SOURCE_SUFFIXES = (".h", ".cc", ".c")
# Folders of host code that other hosts link as a library, which any host may include: the
# PostgreSQL type mapping (the wrapper and the shell's bridge) and the CQL protocol server (the
# shell's `cassette serve`).
SHARED_HOST_CODE = {"pg_common", "server"}

# The layers, lowest first: each folder of engine/, what it builds on (directly or not), its
# public headers (what the layers above and the hosts may include) and the headers only the
# engine's layers above may include.
LAYERS = {
    "util": ([], "coding.h crc32c.h file.h hash64.h json.h message.h status.h",
             # the masking functions of engine/cql count characters with it
             "utf8.h"),
    "types": (["util"],
              "big_integer.h byte_comparable.h constant.h cql_type.h murmur3.h partition_key.h "
              "scalar.h scalar_text.h temporal.h value.h",
              # engine/cql's functions print and compute numbers as Java does with these
              "value_internal.h"),
    # store.h's API and what store.h includes (commit_log.h, manifest.h, memtable.h, arena.h,
    # store_lock.h are public only for that). internal_key.h, row_codec.h and
    # encoded_row_writer.h are the entry format that the SQL hosts' transactions and bulk
    # writers still encode themselves: they leave this list when that code moves into the
    # engine (issue 18: engine/txn, the one INSERT encoder). block_format.h and row_position.h:
    # an index read's row positions (sai_component.h, engine/query's access paths).
    # compaction_listener.h: engine/cql's ANN graphs learn which SSTables a compaction replaced.
    "storage": (["types", "util"],
                "arena.h block_format.h clock.h commit_log.h compaction_listener.h durability.h encoded_batch.h "
                "encoded_row_writer.h "
                "entry_iterator.h flat_row_values.h ids.h index_component.h internal_key.h manifest.h memtable.h "
                "mutation_builder.h sai_component.h overlay.h row.h row_codec.h row_cursor.h "
                "row_position.h sorted_entry_source.h spilled_writes.h store.h store_directory.h "
                "store_lock.h",
                # engine/cql's ANN graph builder abandons a build when an index is dropped;
                # engine/query reads an index's candidate rows by key
                "index_component_removals.h keyed_read.h"),
    "schema": (["storage", "types", "util"],
               "catalog.h index_components.h schema.h schema_digest.h", ""),
    "codec": (["schema", "storage", "types", "util"], "current_row.h table_codec.h", ""),
    "query": (["codec", "schema", "storage", "types", "util"], "access_path.h query.h", ""),
    # The write path (engine/write): operations on columns and the one INSERT encoder.
    "write": (["codec", "schema", "storage", "types", "util"], "operation.h row_encoder.h", ""),
    # A host's SQL transaction (engine/txn): below cql, above codec.
    "txn": (["codec", "schema", "storage", "types", "util"], "pending_fold.h spill.h transaction.h", ""),
    "cql": (["txn", "write", "query", "codec", "schema", "storage", "types", "util"],
            "ann_build.h ast.h bind_markers.h conditions.h execution_context.h functions.h "
            "modification.h "
            "modification_statement.h modification_where.h parser.h result.h session.h "
            "statement_kind.h system_tables.h system_views.h tracing.h vector_checks.h "
            "view_maintenance.h",
            ""),
}


def closure(layer, depends):
    """Every layer `layer` builds on, directly or not."""
    seen, todo = set(), list(depends.get(layer, []))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(depends.get(d, []))
    return seen


def sources(folder):
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.join(root, f)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def print_cmake():
    """The layer table as CMake variables, lowest layer first (CMakeLists.txt includes it)."""
    print("set(CASSETTE_LAYERS " + " ".join(LAYERS) + ")")
    for name, (deps, headers, _) in LAYERS.items():
        print(f"set(CASSETTE_LAYER_{name}_DEPENDS " + " ".join(deps) + ")")
        print(f"set(CASSETTE_LAYER_{name}_PUBLIC_HEADERS " + " ".join(headers.split()) + ")")
    return 0


def main():
    if sys.argv[1:] == ["--cmake"]:
        return print_cmake()
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    os.chdir(repo)
    errors, checked = [], 0
    depends = {name: deps for name, (deps, _, _) in LAYERS.items()}
    public = {name: set(headers.split()) for name, (_, headers, _) in LAYERS.items()}
    engine_only = {name: set(headers.split()) for name, (_, _, headers) in LAYERS.items()}
    for folder in sorted(os.listdir("engine")):
        if os.path.isdir(os.path.join("engine", folder)) and folder not in LAYERS:
            errors.append(f"engine/{folder}: not in the layer table of tools/check_layers.py")
    for layer, headers in list(public.items()) + list(engine_only.items()):
        for h in sorted(headers):
            if not os.path.exists(os.path.join("engine", layer, h)):
                errors.append(f"tools/check_layers.py: engine/{layer}/{h} does not exist")
    for layer, deps in depends.items():
        if layer in closure(layer, depends):
            errors.append(f"engine/{layer}: its dependencies lead back to it (a cycle)")

    def is_public(header):  # header: "engine/<layer>/<file>"
        parts = header.split("/")
        return len(parts) == 3 and parts[2] in public.get(parts[1], set())

    def is_engine_visible(header):
        parts = header.split("/")
        return is_public(header) or (len(parts) == 3 and
                                     parts[2] in engine_only.get(parts[1], set()))

    for layer in sorted(depends):
        below = closure(layer, depends)
        folder = os.path.join("engine", layer)
        for path in sources(folder) if os.path.isdir(folder) else []:
            checked += 1
            bad = []
            is_public_header = is_public(path)
            for inc in includes(path):
                parts = inc.split("/")
                if parts[0] != "engine" or len(parts) != 3:
                    bad.append(f"{path}: includes {inc}, which is not an engine header")
                    continue
                other = parts[1]
                if other != layer and other not in below:
                    bad.append(f"{path}: includes {inc}, but engine/{layer} does not build on "
                               f"engine/{other} (layers: docs/ARCHITECTURE.md)")
                elif other != layer and not is_engine_visible(inc):
                    bad.append(f"{path}: includes {inc}, an internal header of engine/{other}")
                elif is_public_header and not is_public(inc):
                    bad.append(f"{path}: a public header, includes the internal {inc}")
            errors.extend(bad)

    host_folders = [os.path.join("ext", d) for d in sorted(os.listdir("ext"))
                    if os.path.isdir(os.path.join("ext", d))]
    for folder in host_folders + ["examples", "tests/bench"]:
        if not os.path.isdir(folder):
            continue
        for path in sources(folder):
            checked += 1
            for inc in includes(path):
                parts = inc.split("/")
                if parts[0] == "engine" and not is_public(inc):
                    errors.append(f"{path}: includes {inc}, which is not a public engine header")
                elif parts[0] == "ext" and folder.startswith("ext/"):
                    own = folder.split("/")[1]
                    if parts[1] != own and parts[1] not in SHARED_HOST_CODE:
                        errors.append(f"{path}: includes {inc}, from another host's folder")

    failed = {e.split(":")[0] for e in errors}
    for e in errors:
        print(e)
    print(f"layers: {max(checked - len(failed), 0)} passed, {len(failed)} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
