// A schema's digest: 128 bits that name its content, for what must tell schemas apart without
// comparing them (system.local's schema_version, engine/cql/system_tables.h).
#pragma once

#include <cstdint>
#include <utility>

#include "engine/schema/schema.h"

namespace cassette::schema {

// The digest of every keyspace, table, type and index as the catalog stores them (catalog_codec).
// Equal schemas have equal digests in every process; any change (a new table has a new random
// id) gives another. XXH64-based: an identifier, not a cryptographic digest.
std::pair<uint64_t, uint64_t> schema_digest(const Schema& schema);

}  // namespace cassette::schema
