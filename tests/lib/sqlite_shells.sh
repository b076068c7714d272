# Long-running sqlite3 shells driven from a test script, for the suites that run several
# processes on one store (tests/sqlite/test_processes.sh, test_row_cache.sh); source it after
# setting $ext (the extension to load) and `failures=0`.
#
#   start NAME DB      a sqlite3 shell in the background with the extension loaded, list mode,
#                      fed and read through two named pipes (NAME.in, NAME.out: run in an empty
#                      directory)
#   ask NAME SQL       runs SQL in that shell and prints its output (up to a marker line)
#   stop NAME          ends it
#   expect WHAT WANT GOT   prints ok or the difference, counting into `failures`
declare -A in_fd out_fd pid_of
start() {
  local name=$1 db=$2 fd_in fd_out
  mkfifo "$name.in" "$name.out"
  sqlite3 -batch -cmd ".load $ext" -cmd ".mode list" "$db" <"$name.in" >"$name.out" 2>&1 &
  pid_of[$name]=$!
  exec {fd_in}>"$name.in"
  exec {fd_out}<"$name.out"
  in_fd[$name]=$fd_in
  out_fd[$name]=$fd_out
}
ask() {
  local name=$1 sql=$2 line out=""
  printf '%s\n.print @@end@@\n' "$sql" >&"${in_fd[$name]}"
  while IFS= read -r -t 30 -u "${out_fd[$name]}" line; do
    [ "$line" = "@@end@@" ] && break
    out+="$line"$'\n'
  done
  printf '%s' "${out%$'\n'}"
}
stop() {
  local name=$1
  printf '.quit\n' >&"${in_fd[$name]}"
  wait "${pid_of[$name]}" 2>/dev/null
}
expect() {
  if [ "$2" == "$3" ]; then echo "ok: $1"; else
    echo "FAILED: $1"; echo "  want: $2"; echo "  got:  $3"; failures=$((failures + 1)); fi
}
