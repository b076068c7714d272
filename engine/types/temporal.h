// Calendar days and durations as the serialized values of CQL's date, timestamp and duration
// types carry them, for code that converts them to another system's forms (the PostgreSQL
// wrapper, the bridge, the shell's options). value.h prints and parses them as CQL does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cassette::types {

// Days since 1970-01-01 of a civil date and back (proleptic Gregorian; y is the astronomical year,
// so 0 is 1 BC). m is 1..12, d is 1..31.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
void civil_from_days(int64_t z, int64_t* y, unsigned* m, unsigned* d);

// A duration value: months, days and nanoseconds, each with its own sign (Cassandra's Duration).
struct Duration {
  int32_t months = 0;
  int32_t days = 0;
  int64_t nanoseconds = 0;
};
// The serialized form: three zigzag vints. deserialize_duration: nullopt when malformed.
std::string serialize_duration(const Duration& d);
std::optional<Duration> deserialize_duration(std::string_view bytes);

}  // namespace cassette::types
