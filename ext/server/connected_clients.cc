#include "ext/server/connected_clients.h"

namespace cassette::server {

ClientRecord::ClientRecord(std::string address, int port, bool authenticates)
    : authenticates_(authenticates) {
  client_.hostname = address;  // Cassandra: getHostString(), the address when none was looked up
  client_.address = std::move(address);
  client_.port = port;
  client_.connection_stage = "established";
  if (!authenticates_) {
    client_.username = "anonymous";
    client_.authentication_mode = "Unauthenticated";
  }
}

void ClientRecord::set_tls(std::string protocol, std::string cipher_suite) {
  std::lock_guard lock(mutex_);
  client_.ssl_enabled = true;
  client_.ssl_protocol = std::move(protocol);
  client_.ssl_cipher_suite = std::move(cipher_suite);
}

void ClientRecord::started(int protocol_version,
                           const std::map<std::string, std::string>& options) {
  std::lock_guard lock(mutex_);
  client_.protocol_version = protocol_version;
  client_.client_options = options;
  if (auto name = options.find("DRIVER_NAME"); name != options.end()) {
    client_.driver_name = name->second;
  }
  if (auto version = options.find("DRIVER_VERSION"); version != options.end()) {
    client_.driver_version = version->second;
  }
  client_.connection_stage = authenticates_ ? "authenticating" : "ready";
}

void ClientRecord::authenticated(const std::string& user) {
  std::lock_guard lock(mutex_);
  client_.username = user;
  client_.authentication_mode = "Password";
  client_.connection_stage = "ready";
}

cql::ConnectedClient ClientRecord::row() const {
  std::lock_guard lock(mutex_);
  cql::ConnectedClient out = client_;
  out.request_count = requests_.load(std::memory_order_relaxed);
  return out;
}

ClientRegistry::Handle ClientRegistry::add(std::shared_ptr<const ClientRecord> record) {
  std::lock_guard lock(mutex_);
  return records_.insert(records_.end(), std::move(record));
}

void ClientRegistry::remove(Handle handle) {
  std::lock_guard lock(mutex_);
  records_.erase(handle);
}

std::vector<cql::ConnectedClient> ClientRegistry::rows() {
  std::vector<cql::ConnectedClient> out;
  std::lock_guard lock(mutex_);
  for (const auto& record : records_) out.push_back(record->row());
  return out;
}

}  // namespace cassette::server
