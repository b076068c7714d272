#include "engine/cql/system_views.h"

#include <fmt/format.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "engine/cql/system_tables.h"

namespace cassette::cql {

namespace {

struct HostViews {
  std::mutex mutex;
  std::shared_ptr<const std::function<std::vector<ConnectedClient>()>> clients;
  std::vector<std::pair<std::string, std::string>> settings;
};

HostViews& host_views() {
  static HostViews* instance = new HostViews();  // never destroyed: read at exit too
  return *instance;
}

std::atomic<int64_t> fail_threshold{0};

// A size as cassandra.yaml's DataStorageSpec prints it in 5.0's settings table: whole KiB as
// "5KiB", else bytes as "100B".
std::string storage_text(int64_t bytes) {
  if (bytes % 1024 == 0) return fmt::format("{}KiB", bytes / 1024);
  return fmt::format("{}B", bytes);
}

}  // namespace

void set_connected_clients_source(std::function<std::vector<ConnectedClient>()> source) {
  HostViews& views = host_views();
  std::lock_guard lock(views.mutex);
  views.clients =
      source
          ? std::make_shared<const std::function<std::vector<ConnectedClient>()>>(std::move(source))
          : nullptr;
}

std::vector<ConnectedClient> connected_clients() {
  HostViews& views = host_views();
  std::shared_ptr<const std::function<std::vector<ConnectedClient>()>> source;
  {
    std::lock_guard lock(views.mutex);
    source = views.clients;
  }
  return source ? (*source)() : std::vector<ConnectedClient>();
}

void set_host_settings(std::vector<std::pair<std::string, std::string>> settings) {
  HostViews& views = host_views();
  std::lock_guard lock(views.mutex);
  views.settings = std::move(settings);
}

std::map<std::string, std::string> all_settings() {
  // What the engine fixes, under cassandra.yaml's names (Cassandra 5.0's defaults where
  // Cassette behaves as they say).
  std::map<std::string, std::string> out = {
      {"cluster_name", std::string(kClusterName)},
      {"partitioner", "org.apache.cassandra.dht.Murmur3Partitioner"},
      {"num_tokens", "1"},
      {"batch_size_warn_threshold", "5KiB"},
      {"unlogged_batch_across_partitions_warn_threshold", "10"},
      {"sasi_indexes_enabled", "false"},
      {"materialized_views_enabled", "true"},
  };
  const int64_t threshold = batch_size_fail_threshold();
  if (threshold > 0) out["batch_size_fail_threshold"] = storage_text(threshold);
  HostViews& views = host_views();
  std::lock_guard lock(views.mutex);
  for (const auto& [name, value] : views.settings) out[name] = value;
  return out;
}

void set_batch_size_fail_threshold(int64_t bytes) {
  fail_threshold.store(bytes, std::memory_order_relaxed);
}

int64_t batch_size_fail_threshold() {
  return fail_threshold.load(std::memory_order_relaxed);
}

}  // namespace cassette::cql
