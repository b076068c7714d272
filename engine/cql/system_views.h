// What a host tells the engine about itself for Cassandra 5.0's virtual keyspaces
// (system_views, system_virtual_schema; their tables are generated in system_tables.cc), and the
// one server setting the engine applies: batch_size_fail_threshold.
//
// Process-wide: one host serves a process (`cassette serve` sets them before it listens and
// clears them as it stops). The shell, SQLite and PostgreSQL hosts set nothing: their
// system_views.clients is empty, system_views.settings lists the engine's own settings, and no
// batch is refused for its size (a migration script SOURCEd into the shell may be any size).
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cassette::cql {

// Whether `keyspace` is one of Cassandra's virtual keyspaces (system_views,
// system_virtual_schema): generated as the system keyspaces are (system_tables.h), listed in
// system_virtual_schema and not in system_schema.
bool is_virtual_keyspace(std::string_view keyspace);

// One row of system_views.clients (Cassandra 5.0's ClientsTable).
struct ConnectedClient {
  std::string address;  // the client's IP address
  int port = 0;
  std::string hostname;                 // as Cassandra: the address's text without a lookup
  std::optional<std::string> username;  // "anonymous" without authentication, as Cassandra's
  std::string connection_stage;         // established, authenticating, ready
  int protocol_version = 0;
  std::optional<std::map<std::string, std::string>> client_options;  // STARTUP's options
  std::optional<std::string> driver_name;
  std::optional<std::string> driver_version;
  int64_t request_count = 0;
  bool ssl_enabled = false;
  std::optional<std::string> ssl_protocol;
  std::optional<std::string> ssl_cipher_suite;
  std::string authentication_mode;  // Unauthenticated, Password; empty: none yet (null)
};

// The source of system_views.clients; an empty function: no clients.
void set_connected_clients_source(std::function<std::vector<ConnectedClient>()> source);
std::vector<ConnectedClient> connected_clients();

// The host's rows of system_views.settings (cassandra.yaml's names), beside the engine's.
void set_host_settings(std::vector<std::pair<std::string, std::string>> settings);
// Every row of system_views.settings: the engine's and the host's, by name.
std::map<std::string, std::string> all_settings();

// Cassandra's batch_size_fail_threshold: a batch without conditions over more than one
// partition whose size (as its warning counts it) exceeds it is refused, "Batch too large",
// before anything is written. 0: never (the default).
void set_batch_size_fail_threshold(int64_t bytes);
int64_t batch_size_fail_threshold();

}  // namespace cassette::cql
