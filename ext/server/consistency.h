// The consistency levels of QUERY, EXECUTE and BATCH (native protocol §3 [consistency]), and the
// checks Cassandra 5.0 makes of them on a single node. Cassette has one replica, so every level
// is met the moment a write is durable; what is left are the refusals that do not depend on the
// replicas (db/ConsistencyLevel.java), which a client meets the same way on one Cassandra node:
//   a read at ANY                          "ANY ConsistencyLevel is only supported for writes"
//   a write without IF at SERIAL/LOCAL_SERIAL
//                                          "You must use conditional updates for serializable
//                                           writes"
//   a counter write at ANY                 "Consistency level ANY is not yet supported for
//                                           counter table t"
//   a counter write at SERIAL/LOCAL_SERIAL "Counter operations are inherently non-serializable"
//   a conditional write (IF ...) whose serial consistency is not SERIAL/LOCAL_SERIAL
//                                          "Invalid consistency for conditional update. Must be
//                                           one of SERIAL or LOCAL_SERIAL"
//   a conditional write at SERIAL/LOCAL_SERIAL
//                                          "SERIAL is not supported as conditional update commit
//                                           consistency. Use ANY if you mean ..."
// A BATCH without conditions is checked as its statements are (a SERIAL unconditional batch is
// refused as a SERIAL write is), a conditional one as a conditional write. A code outside 0..10
// is a protocol error, as Cassandra's decoder makes it ("Unknown code 42 for a consistency
// level"). All but the last are Invalid (0x2200) errors, raised after the statement is bound.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/cql/ast.h"
#include "engine/util/status.h"

namespace cassette::server {

enum class Consistency : uint16_t {
  kAny = 0x0000,
  kOne = 0x0001,
  kTwo = 0x0002,
  kThree = 0x0003,
  kQuorum = 0x0004,
  kAll = 0x0005,
  kLocalQuorum = 0x0006,
  kEachQuorum = 0x0007,
  kSerial = 0x0008,
  kLocalSerial = 0x0009,
  kLocalOne = 0x000A,
};

// Cassandra's name of a level ("LOCAL_QUORUM"); an unknown code as 0x002a.
std::string consistency_name(uint16_t level);

// The protocol error for a code that names no level, or nullopt.
std::optional<std::string> unknown_consistency(uint16_t level);

// Whether the table a counter check names is a counter table (looked up only when a write's
// level is ANY, SERIAL or LOCAL_SERIAL).
using IsCounterTable = std::function<bool(const cql::QualifiedName& table)>;

// Cassandra's refusal of `statement` at `consistency` (serial consistency `serial`, SERIAL when
// the client sent none), or ok.
Status check_consistency(const cql::Statement& statement, uint16_t consistency,
                         std::optional<uint16_t> serial, const IsCounterTable& is_counter);

}  // namespace cassette::server
