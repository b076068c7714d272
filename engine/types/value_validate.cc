// Checking that bytes are a well-formed value of a type (each TypeSerializer.validate in
// Cassandra, with its messages): fixed widths, UTF-8 and ASCII text, version-1 timeuuids, inet
// lengths, and collections/tuples element by element.
#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

namespace {

Status invalid(std::string msg) {
  return Status::invalid_argument(std::move(msg));
}

Status check_width(std::string_view bytes, size_t width, bool empty_ok, std::string_view message) {
  if (bytes.size() == width || (empty_ok && bytes.empty())) return Status::ok();
  return invalid(fmt::format(fmt::runtime(message), bytes.size()));
}

}  // namespace

Status validate_value(const CqlType& type, std::string_view bytes) {
  switch (type.kind) {
    case TypeKind::kAscii:
      for (char c : bytes)
        if (static_cast<uint8_t>(c) >= 0x80)
          return invalid(
              fmt::format("Invalid byte for ascii: {}", static_cast<int>(static_cast<int8_t>(c))));
      return Status::ok();
    case TypeKind::kText:
      return internal::is_valid_utf8(bytes) ? Status::ok() : invalid("String didn't validate.");
    case TypeKind::kBlob:
    case TypeKind::kVarint:
      return Status::ok();
    case TypeKind::kBoolean:
      return check_width(bytes, 1, true, "Expected 1 or 0 byte value ({})");
    case TypeKind::kTinyint:
      return check_width(bytes, 1, false, "Expected 1 byte for a tinyint ({})");
    case TypeKind::kSmallint:
      return check_width(bytes, 2, false, "Expected 2 bytes for a smallint ({})");
    case TypeKind::kInt:
      return check_width(bytes, 4, true, "Expected 4 or 0 byte int ({})");
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return check_width(bytes, 8, true, "Expected 8 or 0 byte long ({})");
    case TypeKind::kFloat:
      return check_width(bytes, 4, true, "Expected 4 or 0 byte value for a float ({})");
    case TypeKind::kDouble:
      return check_width(bytes, 8, true, "Expected 8 or 0 byte value for a double ({})");
    case TypeKind::kTimestamp:
      return check_width(bytes, 8, true, "Expected 8 or 0 byte long for date ({})");
    case TypeKind::kDate:
      return check_width(bytes, 4, false, "Expected 4 byte long for date ({})");
    case TypeKind::kTime:
      return check_width(bytes, 8, false, "Expected 8 byte long for Time ({})");
    case TypeKind::kUuid:
      return check_width(bytes, 16, true, "UUID should be 16 or 0 bytes ({})");
    case TypeKind::kTimeuuid:
      CASSETTE_RETURN_IF_ERROR(check_width(bytes, 16, true, "UUID should be 16 or 0 bytes ({})"));
      if (!bytes.empty() && internal::uuid_version(bytes) != 1)
        return invalid("Invalid version for TimeUUID type.");
      return Status::ok();
    case TypeKind::kInet:
      if (bytes.empty() || bytes.size() == 4 || bytes.size() == 16) return Status::ok();
      return invalid(
          fmt::format("Expected 4 or 16 byte inetaddress; got {}", types::to_hex(bytes)));
    case TypeKind::kDecimal:
      if (!bytes.empty() && bytes.size() < 4)
        return invalid(fmt::format("Expected 0 or at least 4 bytes ({})", bytes.size()));
      return Status::ok();
    case TypeKind::kDuration:
      if (bytes.empty()) return Status::ok();
      if (bytes.size() < 3)
        return invalid(fmt::format("Expected at least 3 bytes for a duration ({})", bytes.size()));
      if (auto d = types::deserialize_duration(bytes); !d) {
        return invalid("Invalid duration value");
      } else if (!((d->months >= 0 && d->days >= 0 && d->nanoseconds >= 0) ||
                   (d->months <= 0 && d->days <= 0 && d->nanoseconds <= 0))) {
        return invalid("The duration months, days and nanoseconds must be all of the same sign");
      }
      return Status::ok();
    case TypeKind::kList:
    case TypeKind::kSet: {
      if (bytes.empty()) return Status::ok();
      CASSETTE_ASSIGN_OR_RETURN(auto elements, deserialize_list(bytes));
      for (const auto& e : elements) CASSETTE_RETURN_IF_ERROR(validate_value(type.params.at(0), e));
      return Status::ok();
    }
    case TypeKind::kMap: {
      if (bytes.empty()) return Status::ok();
      CASSETTE_ASSIGN_OR_RETURN(auto entries, deserialize_map(bytes));
      for (const auto& [k, v] : entries) {
        CASSETTE_RETURN_IF_ERROR(validate_value(type.params.at(0), k));
        CASSETTE_RETURN_IF_ERROR(validate_value(type.params.at(1), v));
      }
      return Status::ok();
    }
    case TypeKind::kTuple:
    case TypeKind::kUdt: {
      CASSETTE_ASSIGN_OR_RETURN(auto components, deserialize_tuple(bytes));
      if (components.size() > type.params.size())
        return invalid(fmt::format("Invalid remaining data after end of {} value",
                                   type.kind == TypeKind::kTuple ? "tuple" : "UDT"));
      for (size_t i = 0; i < components.size(); ++i)
        if (components[i]) CASSETTE_RETURN_IF_ERROR(validate_value(type.params[i], *components[i]));
      return Status::ok();
    }
    case TypeKind::kVector:
      return deserialize_vector(type, bytes).status();
  }
  return Status::ok();
}

}  // namespace cassette::types
