#include "ext/server/consistency.h"

#include <fmt/format.h>

#include <iterator>
#include <type_traits>
#include <variant>

namespace cassette::server {

namespace {

constexpr std::string_view kNames[] = {"ANY",    "ONE",          "TWO",          "THREE",
                                       "QUORUM", "ALL",          "LOCAL_QUORUM", "EACH_QUORUM",
                                       "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"};

bool is_serial(uint16_t level) {
  return level == static_cast<uint16_t>(Consistency::kSerial) ||
         level == static_cast<uint16_t>(Consistency::kLocalSerial);
}

using Modification = std::variant<cql::InsertStatement, cql::UpdateStatement, cql::DeleteStatement>;

bool has_conditions(const cql::InsertStatement& insert) {
  return insert.if_not_exists;
}
template <typename S>
bool has_conditions(const S& statement) {
  return statement.if_exists || !statement.conditions.empty();
}

// ModificationStatement.executeWithoutCondition: ConsistencyLevel.validateCounterForWrite for a
// counter table, validateForWrite otherwise.
Status check_write(const cql::QualifiedName& table, uint16_t consistency,
                   const IsCounterTable& is_counter) {
  const bool any = consistency == static_cast<uint16_t>(Consistency::kAny);
  if (!any && !is_serial(consistency)) return Status::ok();
  if (is_counter(table)) {
    if (any) {
      return Status::invalid_argument(fmt::format(
          "Consistency level ANY is not yet supported for counter table {}", table.name));
    }
    return Status::invalid_argument("Counter operations are inherently non-serializable");
  }
  if (any) return Status::ok();
  return Status::invalid_argument("You must use conditional updates for serializable writes");
}

// StorageProxy.cas: the Paxos level (validateForCas), then the commit's (validateForCasCommit).
Status check_conditional(uint16_t consistency, std::optional<uint16_t> serial) {
  if (serial && !is_serial(*serial)) {
    return Status::invalid_argument(
        "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL");
  }
  if (is_serial(consistency)) {
    return Status::invalid_argument(fmt::format(
        "{} is not supported as conditional update commit consistency. Use ANY if you mean "
        "\"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL "
        "reads\"",
        consistency_name(consistency)));
  }
  return Status::ok();
}

template <typename S>
Status check_modification(const S& statement, uint16_t consistency, std::optional<uint16_t> serial,
                          const IsCounterTable& is_counter) {
  if (has_conditions(statement)) return check_conditional(consistency, serial);
  return check_write(statement.table, consistency, is_counter);
}

}  // namespace

std::string consistency_name(uint16_t level) {
  if (level < std::size(kNames)) return std::string(kNames[level]);
  return fmt::format("0x{:04x}", level);
}

std::optional<std::string> unknown_consistency(uint16_t level) {
  if (level < std::size(kNames)) return std::nullopt;
  return fmt::format("Unknown code {} for a consistency level", level);
}

Status check_consistency(const cql::Statement& statement, uint16_t consistency,
                         std::optional<uint16_t> serial, const IsCounterTable& is_counter) {
  return std::visit(
      [&](const auto& s) -> Status {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, cql::SelectStatement>) {
          // SelectStatement.execute: ConsistencyLevel.validateForRead.
          if (consistency == static_cast<uint16_t>(Consistency::kAny)) {
            return Status::invalid_argument("ANY ConsistencyLevel is only supported for writes");
          }
          return Status::ok();
        } else if constexpr (std::is_same_v<S, cql::InsertStatement> ||
                             std::is_same_v<S, cql::UpdateStatement> ||
                             std::is_same_v<S, cql::DeleteStatement>) {
          return check_modification(s, consistency, serial, is_counter);
        } else if constexpr (std::is_same_v<S, cql::BatchStatement>) {
          // A conditional batch is one Paxos round (BatchStatement.executeWithConditions).
          for (const Modification& child : s.statements) {
            if (std::visit([](const auto& c) { return has_conditions(c); }, child)) {
              return check_conditional(consistency, serial);
            }
          }
          for (const Modification& child : s.statements) {
            Status status = std::visit(
                [&](const auto& c) {
                  return check_modification(c, consistency, serial, is_counter);
                },
                child);
            if (!status.is_ok()) return status;
          }
          return Status::ok();
        } else {
          return Status::ok();  // schema statements, USE, DESCRIBE: levels mean nothing there
        }
      },
      statement);
}

}  // namespace cassette::server
