// `cassette resolve` (resolve_command.h).
#include "ext/cli/resolve_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "engine/storage/store.h"

namespace cassette::cli {

namespace {

constexpr const char* kUsage =
    "usage: cassette resolve STORE                   (list the transactions in doubt)\n"
    "       cassette resolve STORE commit|abort TAG  (decide one, TAG as listed)\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "cassette resolve: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int store_error(const Status& status) {
  std::fprintf(stderr, "cassette resolve: %s\n", status.message().c_str());
  return 1;
}

int list_in_doubt(storage::Store& store) {
  auto tags = store.in_doubt_transactions();
  if (!tags.is_ok()) return store_error(tags.status());
  if (tags->empty())
    std::fprintf(stderr, "no transaction is in doubt in %s\n", store.path().c_str());
  for (const std::string& tag : *tags) std::printf("%s\n", tag.c_str());
  return 0;
}

int decide(storage::Store& store, bool commit, const std::string& tag) {
  Status decided = store.decide_in_doubt(tag, commit);
  if (!decided.is_ok()) return store_error(decided);
  std::printf("%s %s\n", commit ? "committed" : "aborted", tag.c_str());
  return 0;
}

}  // namespace

int run_resolve_command(std::span<const std::string> args) {
  if (args.size() != 2 && args.size() != 4) return usage_error("expected STORE [commit|abort TAG]");
  if (args.size() == 4 && args[2] != "commit" && args[2] != "abort") {
    return usage_error(fmt::format("unknown decision '{}': commit or abort", args[2]));
  }
  storage::StoreOptions options;
  options.create_if_missing = false;  // a mistyped path must not become an empty store
  options.background_threads = false;
  auto store = storage::Store::open(args[1], options);
  if (!store.is_ok()) {
    std::fprintf(stderr, "cassette resolve: cannot open store %s: %s\n", args[1].c_str(),
                 store.status().message().c_str());
    return 1;
  }
  if (args.size() == 2) return list_in_doubt(**store);
  return decide(**store, args[2] == "commit", args[3]);
}

}  // namespace cassette::cli
