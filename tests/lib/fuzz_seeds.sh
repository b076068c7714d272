# A fixed sample of a fuzz target's seed corpus, shared by tests/fuzz/replay.sh (make test) and
# tests/fuzz/run.sh (make fuzz); source it.
#
#   sample_seeds DIR MAX    prints DIR's files NUL-separated, sorted: all of them when MAX is
#                           "all", else every k-th with k chosen so that at most MAX are printed
#
# The sample is the same every run, so a failure found with it is found again.
sample_seeds() {
  local dir=$1 max=$2
  [ -d "$dir" ] || return 0
  if [ "$max" = all ]; then find "$dir" -type f -print0 | sort -z; return; fi
  local count step
  count=$(find "$dir" -type f | wc -l)
  step=$(((count + max - 1) / max))
  [ "$step" -ge 1 ] || step=1
  find "$dir" -type f -print0 | sort -z |
    awk -v RS='\0' -v ORS='\0' -v step="$step" '(NR - 1) % step == 0'
}
