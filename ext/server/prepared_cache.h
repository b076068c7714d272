// The server's prepared statements, shared by every connection, by the id PREPARE returns: the
// MD5 digest of the statement's text, prefixed with the connection's keyspace when the statement
// leaves a table's keyspace to it (as Cassandra 4.0.2 and later compute it, so that drivers see
// the ids Cassandra would give). A driver prepares a statement once on one connection and
// executes it on any.
//
// Statements stay until the cache is full, then the least recently used goes; an EXECUTE of a
// statement that went answers UNPREPARED and the driver prepares it again. Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/cql/session.h"

namespace cassette::server {

class PreparedCache {
 public:
  explicit PreparedCache(size_t capacity = 10000) : capacity_(capacity) {}

  // The id of `query` prepared on a connection whose keyspace is `keyspace`: `qualified` says
  // whether the statement names the keyspace of every table it uses.
  static std::string id_of(std::string_view query, std::string_view keyspace, bool qualified);

  void put(const std::string& id, std::shared_ptr<const cql::PreparedStatement> statement);
  // nullptr when the id is unknown (never prepared here, or evicted).
  std::shared_ptr<const cql::PreparedStatement> find(const std::string& id);

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const cql::PreparedStatement>>;
  size_t capacity_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_id_;
};

}  // namespace cassette::server
