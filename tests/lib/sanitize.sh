# The sanitizer build (make test-sanitize: clang, ASan + UBSan, CASSETTE_SANITIZE=ON) and the
# programs that are not built with it. The `cassette` shell and the unit tests carry the ASan
# runtime themselves; sqlite3, python3 and postgres do not, so before they load the extension
# the runtime must be loaded first, with LD_PRELOAD.
#
#   source tests/lib/sanitize.sh
#   if sanitize_build "$build_dir"; then ...; fi
#   sanitize_host_env "$build_dir"   # exports LD_PRELOAD, ASAN_OPTIONS, UBSAN_OPTIONS for hosts
#                                    # (nothing for an ordinary build)
#   echo "$SANITIZE_HOST_ENV"        # the same as VAR=value words, for a command line (postgres)

sanitize_build() {  # BUILD_DIR: is it a sanitizer build?
  grep -q '^CASSETTE_SANITIZE:BOOL=ON' "$1/CMakeCache.txt" 2>/dev/null
}

# The sanitizer runtimes the build's `cassette` links (clang's libclang_rt.asan, or GCC's
# libasan and libubsan), colon-separated, and the build's swift_demangle_stub.so after them:
# without it ASan, started by a library constructor inside bindtextdomain(), leaves glibc's
# translation lock broken and PostgreSQL hangs at startup (tests/lib/swift_demangle_stub.c).
# ASAN_OPTIONS cannot avoid that: the runtime's initialization always makes that call.
sanitize_runtimes() {
  local runtimes
  runtimes=$(ldd "$1/cassette" | awk '/libclang_rt\.asan|libasan\.so|libubsan\.so/ { print $3 }' |
             paste -sd:)
  [ -n "$runtimes" ] && [ -f "$1/swift_demangle_stub.so" ] || return 0
  # An absolute path: the hosts run in other directories too (a relative one is not preloaded).
  echo "$runtimes:$(cd "$1" && pwd)/swift_demangle_stub.so"
}

sanitize_host_env() {
  SANITIZE_HOST_ENV=
  sanitize_build "$1" || return 0
  local runtimes
  runtimes=$(sanitize_runtimes "$1")
  if [ -z "$runtimes" ]; then
    echo "sanitize.sh: no sanitizer runtime in ldd $1/cassette, or no $1/swift_demangle_stub.so" >&2
    return 1
  fi
  # The hosts leak at exit by design (python3, postgres), and their own allocations come before
  # the runtime sees the extension: report memory errors in them, not leaks. UBSan's findings
  # abort (the build has -fno-sanitize-recover), with a stack trace.
  SANITIZE_HOST_ENV="LD_PRELOAD=$runtimes ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
  SANITIZE_HOST_ENV+=" UBSAN_OPTIONS=print_stacktrace=1"
  export LD_PRELOAD=$runtimes
  export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
  export UBSAN_OPTIONS=print_stacktrace=1
}
