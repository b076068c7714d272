#!/usr/bin/python3
"""The golden CQL corpus (tests/cql/NAME.cql) played through `cassette serve` with the DataStax
Python driver, each statement's outcome compared with the shell's (tests/cql/NAME.out, written
with --echo):

  - an error: the same exception class and message (the driver's exception classes are
    cqlsh's, whose form the shell prints);
  - a SELECT: the same number of rows, and the same cells when every column is an integer or
    text type (whose shell and Python forms are the same text), but for write times and TTLs,
    which follow the shell's manual clock there; the driver pages at its default fetch_size of
    5000 rows (an ORDER BY over an IN, which Cassandra refuses to page, is run again unpaged,
    as against Cassandra);
  - anything else: success.

Each file runs on a fresh server and store. Files that need the shell itself are skipped: shell
commands (CLOCK ADVANCE, SOURCE, COMPACT, BUILD INDEXES ...) and its manual clock, which the
driver's client timestamps cannot follow. DESCRIBE statements are skipped (the shell prints only
their CQL text), and so is the shell's FLUSH, which changes where rows are stored, not what a
query returns.
Prints "server-golden: N passed, M failed" (one case per file) and what it compared.

Usage: tests/server/test_golden_through_driver.py BUILD_DIR [NAME_FILTER]
"""
import glob
import logging
import os
import re
import sys
import tempfile

from cassandra import InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.query import SimpleStatement, tuple_factory

from server_process import Server

logging.getLogger("cassandra").setLevel(logging.CRITICAL)

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "cql")
SHELL_ONLY = re.compile(r"^\s*(CLOCK|SOURCE|COMPACT|BUILD|EXPAND|PAGING|TRACING|CONSISTENCY|SERIAL)\b", re.I | re.M)
PLAIN_TYPES = {"int", "bigint", "smallint", "tinyint", "varint", "text", "varchar", "ascii",
               "counter"}


def split_statements(script):
    """The statements of a script as the shell cuts them: at top-level ';' outside quotes and
    comments, a BEGIN BATCH ... APPLY BATCH kept whole; each trimmed, comments kept inside."""
    statements, start, i, n = [], 0, 0, len(script)
    while i < n:
        c = script[i]
        if c in "'\"":
            j = i + 1
            while j < n:
                if script[j] == c:
                    if j + 1 < n and script[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
        elif script.startswith("$$", i):
            j = script.find("$$", i + 2)
            i = n if j < 0 else j + 2
        elif script.startswith("--", i) or script.startswith("//", i):
            j = script.find("\n", i)
            i = n if j < 0 else j
        elif script.startswith("/*", i):
            j = script.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == ";":
            text = script[start:i]
            words = re.findall(r"\w+", strip_comments(text))
            in_batch = words and words[0].lower() == "begin" and not (
                len(words) >= 2 and [w.lower() for w in words[-2:]] == ["apply", "batch"])
            if not in_batch:
                statements.append(text)
                start = i + 1
            i += 1
        else:
            i += 1
    return [strip_leading_comments(s) for s in statements if strip_comments(s).strip()]


def strip_leading_comments(text):
    """The statement as the shell echoes it: without the comment lines before it."""
    text = text.strip()
    while True:
        if text.startswith("--") or text.startswith("//"):
            text = text[text.find("\n") + 1:].strip() if "\n" in text else ""
        elif text.startswith("/*") and "*/" in text:
            text = text[text.find("*/") + 2:].strip()
        else:
            return text


def strip_comments(text):
    return re.sub(r"(--|//)[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def expected_outcomes(statements, out):
    """Each statement's block of the shell's output, or None when the echo is not found."""
    blocks, positions, pos = [], [], 0
    for text in statements:
        echo = text + ";\n"
        at = out.find(echo, pos)
        if at < 0:
            return None
        positions.append((at, at + len(echo)))
        pos = at + len(echo)
    for k, (_, end) in enumerate(positions):
        nxt = positions[k + 1][0] if k + 1 < len(positions) else len(out)
        blocks.append(out[end:nxt])
    return blocks


def shell_rows(block):
    """The cells of a table the shell printed: the lines between the ----+---- rule and the
    blank line after it."""
    lines = block.split("\n")
    for k, line in enumerate(lines):
        if re.fullmatch(r"-+(\+-+)*", line):
            rows = []
            for row in lines[k + 1:]:
                if not row.strip():
                    break
                rows.append([cell.strip() for cell in row.split(" | ")])
            return rows
    return []


def run_file(build_dir, name, compared):
    script = open(os.path.join(CORPUS, name + ".cql")).read()
    out = open(os.path.join(CORPUS, name + ".out")).read()
    statements = split_statements(script)
    blocks = expected_outcomes(statements, out)
    if blocks is None:
        raise AssertionError("the shell's echo of a statement was not found (split differs)")
    with tempfile.TemporaryDirectory() as work, \
            Server(build_dir, os.path.join(work, "store")) as server:
        profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(),
                                   row_factory=tuple_factory)
        cluster = Cluster(["127.0.0.1"], port=server.port, connect_timeout=10, protocol_version=4,
                          schema_metadata_enabled=False,
                          execution_profiles={EXEC_PROFILE_DEFAULT: profile})
        try:
            session = cluster.connect()
            for text, block in zip(statements, blocks):
                if re.match(r"\s*DESC(RIBE)?\b", strip_comments(text), re.I):
                    compared["skipped"] += 1
                    continue
                # The shell's FLUSH moves rows to SSTables and changes no result: the driver's
                # run keeps them in the memtable.
                if re.fullmatch(r"\s*FLUSH\s*", strip_comments(text), re.I):
                    compared["skipped"] += 1
                    continue
                compare(session, text, block, compared)
        finally:
            cluster.shutdown()


def error_text(line):
    """An error as "Class: message": cqlsh shows some server errors with their code ("Error from
    server: code=2200 [Invalid query] message=...") and others with the message alone."""
    m = re.fullmatch(r'(\w+): <?Error from server: code=\w+ \[[^]]*\] message="(.*)">?', line,
                     re.S)
    return f"{m.group(1)}: {m.group(2)}" if m else line


def shell_cell(value):
    """A value as the shell's table shows it, for the integer and text types: text with its
    backslashes doubled, as cqlsh escapes them."""
    if value is None:
        return "null"
    return value.replace("\\", "\\\\") if isinstance(value, str) else str(value)


def compare(session, text, block, compared):
    # The shell prints an error as "FILE:LINE:Class: message", Class and message as cqlsh has them.
    error = re.search(r"^[\w.-]+\.cql:\d+:(\w+: .*)$", block, re.M)
    try:
        try:
            # With its ';', as cqlsh sends it (a syntax error's context shows what follows).
            result = session.execute(SimpleStatement(text + ";"))
        except InvalidRequest as e:
            # As against Cassandra: such a query is run unpaged (the shell never pages).
            if "Cannot page queries with both ORDER BY and a IN restriction" not in str(e):
                raise
            result = session.execute(SimpleStatement(text + ";", fetch_size=None))
            compared["unpaged"] += 1
        rows = list(result)
    except Exception as e:  # the driver's exception for an ERROR response
        got = error_text(f"{type(e).__name__}: {e}")
        if not error or got != error_text(error.group(1)):
            raise AssertionError(f"{text}\n  shell:  {error.group(1) if error else 'success'}\n"
                                 f"  driver: {got}")
        compared["errors"] += 1
        return
    if error:
        raise AssertionError(f"{text}\n  shell:  {error.group(1)}\n  driver: success")
    count = re.search(r"^\((\d+) rows\)$", block, re.M)
    if count:
        if int(count.group(1)) != len(rows):
            raise AssertionError(f"{text}\n  shell: {count.group(1)} rows, driver: {len(rows)}")
        compared["selects"] += 1
        types = [getattr(t, "typename", "") for t in (result.column_types or [])]
        if types and all(t in PLAIN_TYPES for t in types):
            # Write times and TTLs follow the clock, which is the shell's manual one there.
            # An alias hides the function: `ttl(v) AS v_ttl` is clocked too.
            aliases = {m.lower() for m in re.findall(
                r"(?:writetime|ttl)\s*\([^)]*\)\s+AS\s+(\w+)", text, re.I)}
            clocked = [i for i, name in enumerate(result.column_names or [])
                       if re.search(r"(writetime|ttl)\(", name) or name.lower() in aliases]
            expected = [[c for i, c in enumerate(row) if i not in clocked]
                        for row in shell_rows(block)]
            actual = [[shell_cell(v) for i, v in enumerate(row) if i not in clocked]
                      for row in rows]
            # An empty value of a non-text type (the shell shows nothing) is None in Python.
            texts = [t for i, t in enumerate(types) if i not in clocked]
            for want, got in zip(expected, actual):
                for i, cell in enumerate(got):
                    if cell == "null" and i < len(want) and want[i] == "" and \
                            texts[i] not in ("text", "varchar", "ascii"):
                        got[i] = ""
            if all("|" not in cell and "\n" not in cell for row in actual for cell in row):
                if expected != actual:
                    raise AssertionError(f"{text}\n  shell:  {expected}\n  driver: {actual}")
                compared["cells"] += len(rows)
    else:
        compared["others"] += 1


def main():
    build_dir = sys.argv[1] if len(sys.argv) > 1 else "build"
    name_filter = sys.argv[2] if len(sys.argv) > 2 else ""
    passed = failed = skipped_files = 0
    compared = {"errors": 0, "selects": 0, "cells": 0, "others": 0, "skipped": 0,
                "unpaged": 0}
    for path in sorted(glob.glob(os.path.join(CORPUS, "*.cql"))):
        name = os.path.basename(path)[:-4]
        if name_filter not in name:
            continue
        if SHELL_ONLY.search(strip_comments(open(path).read())):
            skipped_files += 1
            continue
        try:
            run_file(build_dir, name, compared)
            passed += 1
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    print(f"compared {compared['errors']} errors, {compared['selects']} SELECTs "
          f"({compared['cells']} rows cell by cell; {compared['unpaged']} ORDER BY over IN run "
          f"unpaged), {compared['others']} other statements; "
          f"skipped {compared['skipped']} DESCRIBE and FLUSH statements and {skipped_files} files that "
          f"need the shell")
    print(f"server-golden: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
