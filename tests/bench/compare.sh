#!/usr/bin/env bash
# One build against another in the same run, so that a change is judged on the same machine at
# the same moment (this VM's timings vary by up to 2x between runs minutes apart):
#   tests/bench/compare.sh OLD_BUILD NEW_BUILD [ROUNDS]
# Both are Release builds with the benchmarks (cmake -DCMAKE_BUILD_TYPE=Release
# -DCASSETTE_BENCH=ON, or what `make bench BUILD_DIR=...` leaves). Each round runs every workload
# of `make bench` on both builds, alternating which goes first; the workloads' own sizes apply
# (BENCH_ROWS, BENCH_SQLITE_ROWS, ...). Prints, per RESULT line, the median ratio against the peer
# for each build and new/old (above 1: the new build is better; each ratio is already relative
# to a peer measured beside it, which cancels most of the machine's drift).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: tests/bench/compare.sh OLD_BUILD NEW_BUILD [ROUNDS]" >&2
  exit 2
fi
old=$1 new=$2 rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The bench scripts of the source tree a build was made from (its CMakeCache), so that each build
# runs the workloads as its own tree defines them (an old wrapper may not know a newer script's
# server options); this tree's when the cache does not say.
scripts_of() {
  local source
  source=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null)
  if [ -n "$source" ] && [ -d "$source/tests/bench" ]; then
    echo "$source/tests/bench"
  else
    echo "$here"
  fi
}

# Runs every workload on build $2, appending "label workload peer ratio" lines to $out/results.
run_all() {
  local label=$1 build=$2 script
  "$build/cassette_bench" | awk -v l="$label" '$1 == "RESULT" { print l, $2, $3, $4 }' \
    >> "$out/results"
  for script in "$(scripts_of "$build")"/bench_*.sh; do
    "$script" "$build" | awk -v l="$label" '$1 == "RESULT" { print l, $2, $3, $4 }' \
      >> "$out/results"
  done
}

for build in "$old" "$new"; do
  if [ ! -x "$build/cassette_bench" ]; then
    echo "compare: $build/cassette_bench is missing (configure with -DCASSETTE_BENCH=ON)" >&2
    exit 1
  fi
done
for ((round = 1; round <= rounds; round++)); do
  echo "# round $round of $rounds" >&2
  if ((round % 2)); then
    run_all old "$old"; run_all new "$new"
  else
    run_all new "$new"; run_all old "$old"
  fi
done

python3 - "$out/results" <<'EOF'
import statistics, sys
ratios = {}
for line in open(sys.argv[1]):
    label, workload, peer, ratio = line.split()
    ratios.setdefault((workload, peer), {}).setdefault(label, []).append(float(ratio))
print(f"{'workload':<22} {'peer':<14} {'old':>6} {'new':>6} {'new/old':>8}")
for (workload, peer), by in ratios.items():
    old, new = statistics.median(by.get("old", [0])), statistics.median(by.get("new", [0]))
    change = f"{new / old:8.2f}" if old else "       -"
    print(f"{workload:<22} {peer:<14} {old:6.2f} {new:6.2f} {change}")
EOF
