# Cassette — the commands a user and CI type. CMake does the building; this wraps it.
#   make deps    install the Debian 12 packages the project needs (as root; idempotent)
#   make build   configure and build everything into build/
#   make test    build, then run every test suite; prints "N passed, N failed"
#   make bench   build the benchmarks (RocksDB peer) and print RESULT lines
#   make demo    the main job: Twissandra in the sqlite3 shell, printing a home timeline
#   make soak    processes on one store killed at random, invariants checked (SOAK_SECONDS=600)
#   make install install the binaries (and, once built, the extensions)
#   make clean   remove build/

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
SANITIZE ?= OFF
SOAK_SECONDS ?= 600
SOAK_SEED ?=

# Packages for building and testing; the benchmark peer is separate so a user need not install it.
DEB_PACKAGES = build-essential cmake pkg-config sqlite3 libsqlite3-dev libpqxx-dev libfmt-dev \
               doctest-dev libzstd-dev libgmp-dev postgresql-15 postgresql-server-dev-15 \
               libedit-dev python3
BENCH_PACKAGES = librocksdb-dev

.PHONY: deps bench-deps build test bench demo soak install clean

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "deps: all installed"; fi

bench-deps: deps
	@dpkg-query -W -f='$${Status}\n' $(BENCH_PACKAGES) 2>/dev/null | grep -q '^install ok installed' || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PACKAGES))

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCASSETTE_SANITIZE=$(SANITIZE)

build: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	tests/run_tests.sh $(BUILD_DIR)

bench: bench-deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCASSETTE_BENCH=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)
	$(BUILD_DIR)/cassette_bench
	@# the SQL hosts' workloads: each tests/bench/bench_*.sh prints its own RESULT lines
	@for script in tests/bench/bench_*.sh; do \
	  if [ -x "$$script" ]; then "$$script" $(BUILD_DIR) || exit 1; fi; done

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

install: build
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
