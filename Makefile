# Cassette — the commands a user and CI type. CMake does the building; this wraps it.
#   make deps    install the Debian 12 packages the project needs (as root; idempotent)
#   make build   configure and build everything into build/
#   make test    build, then run every test suite; prints "N passed, N failed"
#   make test-sanitize   the same suite built with clang, ASan and UBSan, in build-sanitize/
#   make fuzz    every libFuzzer target for FUZZ_SECONDS each, and the SQL differential test
#   make format  clang-format every C and C++ file git tracks (make format-check: list, fail)
#   make bench   build the benchmarks (RocksDB peer) and print RESULT lines
#   make bench-scale  SQLite extension vs native SQLite at 1M, 5M, 20M rows (BENCH_SCALE_ROWS)
#   make demo    the main job: Twissandra in the sqlite3 shell, printing a home timeline
#   make soak    processes on one store killed at random, invariants checked (SOAK_SECONDS=600)
#   make install install the binaries (and, once built, the extensions)
#   make clean   remove build/

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
SANITIZE ?= OFF
# ON: any compiler warning fails the build (CI). Read when a build directory is first configured.
WERROR ?= OFF
SOAK_SECONDS ?= 600
SOAK_SEED ?=
# The sanitizer build: clang, ASan + UBSan, -O1, with the fuzz targets (libFuzzer) in it.
SANITIZE_DIR ?= build-sanitize
FUZZ_SECONDS ?= 60
# At most this many of each target's seeds to start from (tests/fuzz/run.sh), or all.
FUZZ_MAX_SEEDS ?= all
FUZZ_SEED ?= $(shell date +%s)

# Packages for building and testing; the benchmark peer is separate so a user need not install it.
DEB_PACKAGES = build-essential cmake pkg-config sqlite3 libsqlite3-dev libpqxx-dev libfmt-dev \
               doctest-dev libzstd-dev libgmp-dev postgresql-15 postgresql-server-dev-15 \
               libedit-dev python3 clang-14 libclang-rt-14-dev clang-format-14 acl \
               libasio-dev liblz4-dev libsnappy-dev python3-cassandra python3-lz4 python3-snappy \
               libcrypt-dev libssl-dev openssl nodejs libhnswlib-dev libicu-dev
# clang-14 builds the sanitizer suite and the fuzz targets; libclang-rt-14-dev has its ASan and
# UBSan runtimes and libFuzzer (libclang_rt.fuzzer). clang-format-14: make format, format-check.
# acl: setfacl, for the shell test of a store a group shares (ext/postgres/README.md).
# libasio-dev (standalone Asio), liblz4-dev, libsnappy-dev: `cassette serve`'s network loop and
# frame compressions; python3-cassandra (with python3-lz4 and python3-snappy for its frame
# compressions): the DataStax Python driver the server's tests connect with, and whose schema
# parser reads our system_schema rows (tests/cli/driver_metadata_test.py).
# libcrypt-dev (libxcrypt): the bcrypt hashes of `cassette serve --auth-file` and `cassette passwd`.
# libssl-dev: `cassette serve --tls-cert/--tls-key` (asio::ssl), mask_hash's digests; openssl: the
# TLS tests make a throwaway self-signed certificate with it. nodejs and npm: the Node.js
# cassandra-driver test of `cassette serve` (tests/server/node, its packages pinned by
# package-lock.json and installed by `npm ci`; cassandra-driver 4.8 runs on Debian 12's nodejs 18).
# libhnswlib-dev (header-only hnswlib 0.6.2): the HNSW graph per SSTable behind ORDER BY ... ANN OF
# (engine/cql/ann_index.h); an SSTable never changes, so a graph built once serves it for life.
# npm is a package of its own in Debian and part of NodeSource's nodejs: installed only when
# missing.
# librocksdb-dev: the engine's peer in cassette_bench. tests/bench/node (npm ci): the Node.js
# cassandra-driver and node-postgres for tests/bench/bench_serve.sh.
BENCH_PACKAGES = librocksdb-dev

.PHONY: deps bench-deps build test sanitize-build test-sanitize fuzz bench bench-scale demo soak \
        install clean format format-check

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "deps: all installed"; fi
	@command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; }
	cd tests/server/node && npm ci --no-audit --no-fund

bench-deps: deps
	@dpkg-query -W -f='$${Status}\n' $(BENCH_PACKAGES) 2>/dev/null | grep -q '^install ok installed' || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PACKAGES))
	cd tests/bench/node && npm ci --no-audit --no-fund

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCASSETTE_SANITIZE=$(SANITIZE) \
	  -DCASSETTE_WERROR=$(WERROR)

build: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	tests/run_tests.sh $(BUILD_DIR)

$(SANITIZE_DIR)/CMakeCache.txt:
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Sanitize \
	  -DCASSETTE_SANITIZE=ON -DCASSETTE_FUZZ=ON -DCASSETTE_WERROR=$(WERROR)

sanitize-build: $(SANITIZE_DIR)/CMakeCache.txt
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

# The whole suite again, every program and extension built with ASan and UBSan (tests/lib/
# sanitize.sh preloads the runtime into sqlite3, python3 and postgres, with swift_demangle_stub.so
# beside it: without that, ASan's start inside a library constructor hangs postgres; see
# tests/lib/swift_demangle_stub.c). The PostgreSQL suite runs the instrumented cassette_fdw in
# its own server's backends, leak checking off there (postgres frees some memory only at exit).
test-sanitize: sanitize-build
	tests/run_tests.sh $(SANITIZE_DIR)

# Each fuzz target for FUZZ_SECONDS (tests/fuzz/run.sh), then the SQL differential test with
# random seeds from FUZZ_SEED on for as long; both print what to rerun on a failure.
fuzz: sanitize-build
	FUZZ_MAX_SEEDS=$(FUZZ_MAX_SEEDS) FUZZ_SEED=$(FUZZ_SEED) tests/fuzz/run.sh $(SANITIZE_DIR) $(FUZZ_SECONDS)
	tests/sqlite/run_differential.sh $(SANITIZE_DIR) $(FUZZ_SEED) $(FUZZ_SECONDS)

bench: bench-deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCASSETTE_BENCH=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)
	$(BUILD_DIR)/cassette_bench
	@# the SQL hosts' workloads: each tests/bench/bench_*.sh prints its own RESULT lines
	@for script in tests/bench/bench_*.sh; do \
	  if [ -x "$$script" ]; then "$$script" $(BUILD_DIR) || exit 1; fi; done

# Native SQLite and the extension at BENCH_SCALE_ROWS rows (default 1M, 5M and 20M: long; the
# ingest, hot and cold slices, scan, disk and each side's peak RSS): tests/bench/scale_bench.py.
bench-scale:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCASSETTE_BENCH=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)
	tests/bench/scale.sh $(BUILD_DIR)

# The main job: build everything, then load the SQLite extension in the sqlite3 shell, create
# the Twissandra tables (examples/twissandra: users, followers, tweets, timelines), fan 3,000
# tweets out to followers' timelines, and print one user's timeline, newest first.
demo: build
	examples/twissandra/run.sh $(BUILD_DIR) $(BUILD_DIR)/twissandra

# Several processes on one store (sqlite3 hosts, the cassette shell, PostgreSQL backends through
# cassette_fdw on a throwaway server) write, read, flush, compact and change the schema while
# they are SIGKILLed at random; a checker proves the invariants after each kill
# (tests/soak/run.sh). SOAK_SECONDS bounds it (CI: 60); SOAK_SEED repeats a run's choices.
soak: build
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_SEED=$(SOAK_SEED) tests/soak/run.sh $(BUILD_DIR)

# Formatting: the root .clang-format for every C and C++ file git tracks, except the PostgreSQL
# glue's C (fdw_*.c, fdw_*.h, cassette_api.h), which follows PostgreSQL's own style
# (ext/postgres/pg_style.clang-format, an approximation of pgindent). format rewrites the files;
# format-check changes nothing, lists the files that differ and fails if there are any.
CLANG_FORMAT ?= clang-format-14
PG_STYLE = ext/postgres/pg_style.clang-format
PG_C_FILES = git ls-files 'ext/postgres/*.c' 'ext/postgres/fdw_*.h' ext/postgres/cassette_api.h
SOURCE_FILES = git ls-files '*.cc' '*.h' '*.c' | grep -vxF "$$($(PG_C_FILES))"

format:
	@$(SOURCE_FILES) | xargs -r $(CLANG_FORMAT) -i --style=file
	@$(PG_C_FILES) | xargs -r $(CLANG_FORMAT) -i --style=file:$(PG_STYLE)

format-check:
	@$(CLANG_FORMAT) --dump-config >/dev/null && \
	  $(CLANG_FORMAT) --dump-config --style=file:$(PG_STYLE) >/dev/null
	@differ=$$({ $(SOURCE_FILES) | xargs -r $(CLANG_FORMAT) --dry-run --style=file; \
	  $(PG_C_FILES) | xargs -r $(CLANG_FORMAT) --dry-run --style=file:$(PG_STYLE); } 2>&1 | \
	  sed -n 's/^\(.*\):[0-9]*:[0-9]*: .*\[-Wclang-format-violations\]$$/\1/p' | sort -u); \
	if [ -n "$$differ" ]; then \
	  echo "format-check: $$(echo "$$differ" | wc -l) files differ from clang-format (make format):"; \
	  echo "$$differ"; exit 1; \
	fi; echo "format-check: every file is formatted"

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
