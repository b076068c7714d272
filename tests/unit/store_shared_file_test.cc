// The store's SHARED file (the change counter, store_lock.h) truncated while the store is open:
// reads and writes go on, and other processes still see each change. It was mapped, and the
// next access to a truncated mapping killed the process with SIGBUS, so the scenario runs in a
// child process: a signal fails the test instead of killing the runner.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>

#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;

StoreOptions inline_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  return o;
}

// The values of partition "p", in clustering order.
std::vector<std::string> values_of(Store& store) {
  std::vector<std::string> values;
  for (const ReadRow& row : read_partition(store, kTable, "p")) values.push_back(row.value);
  return values;
}

// Runs `scenario` in a child process; its wait status.
int wait_status_of(const std::function<bool()>& scenario) {
  pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = scenario();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scenario: %s\n", e.what());
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

bool expect(std::vector<std::string> got, std::vector<std::string> want, const char* when) {
  if (got == want) return true;
  std::fprintf(stderr, "scenario: wrong rows %s\n", when);
  return false;
}

// In this process: write, truncate SHARED, read and write again; then another process writes
// after a truncate and this one must see it.
bool truncate_shared_while_open(const std::string& dir) {
  const std::string shared = dir + "/SHARED";
  int go[2];
  if (::pipe(go) != 0) return false;
  pid_t writer = ::fork();  // before this process opens the store: it opens its own
  if (writer == 0) {
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(1);
    auto store = Store::open(dir, inline_options()).value();
    put(*store, kTable, "p", 3, insert_row("three"));
    ::_exit(0);
  }
  auto store = Store::open(dir, inline_options()).value();
  put(*store, kTable, "p", 1, insert_row("one"));
  if (::truncate(shared.c_str(), 0) != 0) return false;
  if (!expect(values_of(*store), {"one"}, "after the first truncate")) return false;
  put(*store, kTable, "p", 2, insert_row("two"));
  if (!expect(values_of(*store), {"one", "two"}, "after a write")) return false;

  if (::truncate(shared.c_str(), 3) != 0) return false;
  char c = 1;
  if (::write(go[1], &c, 1) != 1) return false;
  int status = 0;
  ::waitpid(writer, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  return expect(values_of(*store), {"one", "two", "three"}, "after another process wrote");
}

}  // namespace

TEST_CASE("shared file: truncated while a store is open, it costs no signal and no change") {
  TempDir dir;
  int status = wait_status_of([&] { return truncate_shared_while_open(dir.path()); });
  INFO("killed by signal " << (WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "none"));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  auto store = Store::open(dir.path(), inline_options()).value();
  CHECK(values_of(*store) == std::vector<std::string>{"one", "two", "three"});
}
