// floor(): rounds a timestamp, timeuuid, date or time down to a multiple of a duration counted
// from a starting time (the epoch unless given), as Cassandra's TimeFcts floor functions and
// Duration.floorTimestamp()/floorTime() do. GROUP BY floor(t, 1h) builds time buckets with it.
#include "engine/cql/functions_internal.h"
#include "engine/types/value_internal.h"

namespace cassette::cql::functions_internal {

using types::CqlType;
using types::Duration;
using types::TypeKind;
using types::Value;

namespace {

constexpr int64_t kMillisPerDay = 86400000;
constexpr int64_t kNanosPerMilli = 1000000;

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// Calendar.add(MONTH, n) in UTC: the day of month is clamped to the new month's length and the
// time of day kept.
int64_t add_months(int64_t millis, int64_t months) {
  const int64_t days = floor_div(millis, kMillisPerDay);
  const int64_t time_of_day = millis - days * kMillisPerDay;
  int64_t y;
  unsigned m, d;
  types::civil_from_days(days, &y, &m, &d);
  int64_t month_index = y * 12 + (m - 1) + months;
  y = floor_div(month_index, 12);
  m = static_cast<unsigned>(month_index - y * 12 + 1);
  const unsigned last = types::days_from_civil(y + (m == 12), m == 12 ? 1 : m + 1, 1) -
                        types::days_from_civil(y, m, 1);
  if (d > last) d = last;
  return types::days_from_civil(y, m, d) * kMillisPerDay + time_of_day;
}

}  // namespace

// Duration.addTo()/substractFrom(): months with the calendar, then days and milliseconds.
int64_t add_duration(int64_t millis, const Duration& d, bool subtract) {
  const int64_t sign = subtract ? -1 : 1;
  if (d.months != 0) millis = add_months(millis, sign * d.months);
  return millis + sign * (d.days * kMillisPerDay + d.nanoseconds / kNanosPerMilli);
}

namespace {

int64_t duration_millis(const Duration& d) {
  return d.days * kMillisPerDay + d.nanoseconds / kNanosPerMilli;
}

bool negative(const Duration& d) {
  return d.months < 0 || d.days < 0 || d.nanoseconds < 0;
}

Result<int64_t> floor_timestamp(int64_t time, const Duration& duration, int64_t start) {
  if (start > time)
    return Status::invalid_argument(
        "The floor function starting time is greater than the provided time");
  if (negative(duration))
    return Status::invalid_argument("Negative durations are not supported by the floor function");
  if (duration.months == 0) {
    const int64_t step = duration_millis(duration);
    if (step == 0) return time;
    return time - (time - start) % step;
  }
  // Estimate the number of whole durations from the months, then step back while the days and
  // nanoseconds overshoot (Duration.floorTimestamp).
  int64_t y1, y0;
  unsigned m1, m0, d;
  types::civil_from_days(floor_div(time, kMillisPerDay), &y1, &m1, &d);
  types::civil_from_days(floor_div(start, kMillisPerDay), &y0, &m0, &d);
  const int64_t months_between = (y1 - y0) * 12 + (static_cast<int64_t>(m1) - m0);
  int64_t multiplier = months_between / duration.months;
  int64_t calendar = add_months(start, multiplier * duration.months);
  if (duration.days == 0 && duration.nanoseconds == 0) return calendar;
  const int64_t step = duration_millis(duration);
  int64_t floor = calendar + multiplier * step;
  while (floor > time) {
    --multiplier;
    calendar = add_months(calendar, -duration.months);
    floor = calendar + multiplier * step;
  }
  return std::max(start, floor);
}

Result<Duration> duration_of(const Value& v) {
  auto d = types::deserialize_duration(*v);
  if (!d) return Status::invalid_argument("Invalid duration value");
  return *d;
}

Status check_millisecond_precision(const Duration& d) {
  // Long.numberOfTrailingZeros(nanoseconds) >= 6, as Cassandra checks it
  if (d.nanoseconds != 0 && __builtin_ctzll(static_cast<uint64_t>(d.nanoseconds)) < 6)
    return Status::invalid_argument(fmt::format(
        "The floor cannot be computed for the {} duration as precision is below 1 millisecond",
        types::internal::duration_to_string(d)));
  return Status::ok();
}

int64_t timestamp_millis(std::string_view b) {
  return types::read_signed(b);
}
int64_t date_millis(std::string_view b) {
  return (static_cast<int64_t>(types::read_unsigned(b)) - (int64_t{1} << 31)) * kMillisPerDay;
}
int64_t timeuuid_millis(std::string_view b) {
  return floor_div(types::timeuuid_micros(b), 1000);
}

Value timestamp_value(int64_t millis) {
  return types::store_be(static_cast<uint64_t>(millis), 8);
}
Value date_value(int64_t millis) {
  return types::store_be(static_cast<uint32_t>(millis / kMillisPerDay + (int64_t{1} << 31)), 4);
}

bool any_empty(std::span<const Value> args) {
  for (const Value& v : args)
    if (!v || v->empty()) return true;
  return false;
}

// A floor over a type whose values convert to and from epoch milliseconds.
Apply floor_of(int64_t (*to_millis)(std::string_view), int64_t (*start_millis)(std::string_view),
               Value (*from_millis)(int64_t), bool date_precision) {
  return [=](std::span<const Value> args, const FunctionContext&) -> Result<Value> {
    if (any_empty(args)) return Value();
    CASSETTE_ASSIGN_OR_RETURN(Duration duration, duration_of(args[1]));
    if (date_precision) {
      if (duration.nanoseconds != 0)
        return Status::invalid_argument(
            fmt::format("The floor on date values cannot be computed for the {} duration as "
                        "precision is below 1 day",
                        types::internal::duration_to_string(duration)));
    } else {
      CASSETTE_RETURN_IF_ERROR(check_millisecond_precision(duration));
    }
    const int64_t start = args.size() == 3 ? start_millis(*args[2]) : 0;
    CASSETTE_ASSIGN_OR_RETURN(int64_t floor, floor_timestamp(to_millis(*args[0]), duration, start));
    return from_millis(floor);
  };
}

}  // namespace

void add_floor_functions(Functions* fns) {
  const CqlType timestamp = CqlType::simple(TypeKind::kTimestamp),
                timeuuid = CqlType::simple(TypeKind::kTimeuuid),
                date = CqlType::simple(TypeKind::kDate), time = CqlType::simple(TypeKind::kTime),
                duration = CqlType::simple(TypeKind::kDuration);
  add_function(fns, "floor", {timestamp, duration}, timestamp,
               floor_of(timestamp_millis, timestamp_millis, timestamp_value, false));
  add_function(fns, "floor", {timestamp, duration, timestamp}, timestamp,
               floor_of(timestamp_millis, timestamp_millis, timestamp_value, false));
  add_function(fns, "floor", {timeuuid, duration}, timestamp,
               floor_of(timeuuid_millis, timestamp_millis, timestamp_value, false));
  add_function(fns, "floor", {timeuuid, duration, timestamp}, timestamp,
               floor_of(timeuuid_millis, timestamp_millis, timestamp_value, false));
  add_function(fns, "floor", {date, duration}, date,
               floor_of(date_millis, date_millis, date_value, true));
  add_function(fns, "floor", {date, duration, date}, date,
               floor_of(date_millis, date_millis, date_value, true));
  add_function(
      fns, "floor", {time, duration}, time,
      [](std::span<const Value> args, const FunctionContext&) -> Result<Value> {
        if (any_empty(args)) return Value();
        CASSETTE_ASSIGN_OR_RETURN(Duration d, duration_of(args[1]));
        if (negative(d))
          return Status::invalid_argument(
              "Negative durations are not supported by the floor function");
        if (d.months != 0 || d.days != 0 || d.nanoseconds > int64_t{86400} * 1000000000)
          return Status::invalid_argument(
              "For time values, the floor can only be computed for durations smaller that a day");
        const int64_t nanos = types::read_signed(*args[0]);
        if (d.nanoseconds == 0) return args[0];
        return Value(types::store_be(static_cast<uint64_t>(nanos - nanos % d.nanoseconds), 8));
      });
}

}  // namespace cassette::cql::functions_internal
