// The rows of system_views.clients (cql/system_views.h): each connection keeps a ClientRecord
// that it updates as its handshake goes (STARTUP's options and version, the user it logs in as,
// TLS), and counts its requests in; the server's ClientRegistry lists the records of the open
// connections when a request reads the table.
//
// Thread-safe: a connection writes its record on its strand or its request threads while any
// request thread reads it.
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/cql/system_views.h"

namespace cassette::server {

class ClientRecord {
 public:
  // A connection just accepted: ESTABLISHED. `authenticates`: the server asks for a password
  // (PasswordAuthenticator); without one every client is "anonymous", as Cassandra's
  // AllowAllAuthenticator makes it.
  ClientRecord(std::string address, int port, bool authenticates);

  // TLS, once its handshake is done.
  void set_tls(std::string protocol, std::string cipher_suite);
  // STARTUP answered: the connection's version and options; AUTHENTICATING or READY.
  void started(int protocol_version, const std::map<std::string, std::string>& options);
  // AUTH_RESPONSE accepted: READY as `user`.
  void authenticated(const std::string& user);
  void count_request() { requests_.fetch_add(1, std::memory_order_relaxed); }

  cql::ConnectedClient row() const;

 private:
  mutable std::mutex mutex_;
  cql::ConnectedClient client_;
  bool authenticates_;
  std::atomic<int64_t> requests_{0};
};

// The open connections' records: a connection adds its record when accepted and removes it as
// it goes.
class ClientRegistry {
 public:
  using Handle = std::list<std::shared_ptr<const ClientRecord>>::iterator;
  Handle add(std::shared_ptr<const ClientRecord> record);
  void remove(Handle handle);
  std::vector<cql::ConnectedClient> rows();

 private:
  std::mutex mutex_;
  std::list<std::shared_ptr<const ClientRecord>> records_;
};

}  // namespace cassette::server
