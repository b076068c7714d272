# Shared by the shell-driven suites (tests/cli/test_cli.sh, tests/bridge/run.sh); source it.
#
#   check NAME EXPECTED_STATUS EXPECTED_STDOUT EXPECTED_STDERR -- COMMAND...
#
# Runs COMMAND and compares its exit status, stdout (without its final newline; passed through
# check_output_filter first when the script defines one, e.g. to mask timings) and stderr
# exactly. Counts into the caller's `passed` / `failed` and prints the differences. Needs $work,
# a scratch directory.
# run_captured COMMAND...: sets the caller's `status`, `out` (stdout without its final newline:
# expected texts are written without it) and `err` (stderr).
run_captured() {
  out=$("$@" 2>"$work/stderr"; echo "~$?")
  status=${out##*~}
  out=${out%~*}
  out=${out%$'\n'}
  err=$(cat "$work/stderr")
}

check() {
  local name=$1 want_status=$2 want_out=$3 want_err=$4
  shift 5
  local out err status
  run_captured "$@"
  if declare -F check_output_filter >/dev/null; then out=$(printf '%s' "$out" | check_output_filter); fi
  if [[ "$status" == "$want_status" && "$out" == "$want_out" && "$err" == "$want_err" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name"
    [[ "$status" != "$want_status" ]] && echo "  status: want $want_status, got $status"
    if [[ "$out" != "$want_out" ]]; then
      echo "  stdout differs:"; diff <(printf '%s\n' "$want_out") <(printf '%s\n' "$out") | sed 's/^/    /'
    fi
    if [[ "$err" != "$want_err" ]]; then
      echo "  stderr differs:"; diff <(printf '%s\n' "$want_err") <(printf '%s\n' "$err") | sed 's/^/    /'
    fi
  fi
}
