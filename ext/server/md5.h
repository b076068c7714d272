// MD5 (RFC 1321, OpenSSL's), for the ids of prepared statements: Cassandra names a prepared
// statement by the MD5 digest of its keyspace and text, and drivers compare ids across the nodes
// they know. Not for security.
#pragma once

#include <string>
#include <string_view>

namespace cassette::server {

// The 16-byte digest of `data`.
std::string md5(std::string_view data);

}  // namespace cassette::server
