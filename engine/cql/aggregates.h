// CQL's native aggregate functions: count(*) / count(1) / count(x), min, max, sum and avg, with
// Cassandra's result types and arithmetic (AggregateFcts.java): sum of an int is an int that
// wraps around as Java's int does, avg of an int is the truncated int quotient of a long sum,
// sums of floating-point values use compensated summation, varint and decimal sums are exact
// (BigInteger), avg of decimals is a running average rounded HALF_EVEN at every step, and over
// no rows count/sum/avg give 0 while min/max give null.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/types/big_integer.h"
#include "engine/types/cql_type.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cql {

enum class AggregateKind { kCountRows, kCount, kMin, kMax, kSum, kAvg };

struct AggregateFunction {
  AggregateKind kind = AggregateKind::kCountRows;
  std::string name;         // "system.sum"; "count" for count(*)
  types::CqlType argument;  // unused for kCountRows
  types::CqlType result;
};

// Whether `name` (already lower-cased unless quoted; "system." prefix allowed) is an aggregate.
bool is_aggregate_name(std::string_view name);

// The aggregate `name` applied to an argument of `argument` type, with Cassandra's message when
// no signature matches (sum/avg of a non-numeric type).
Result<AggregateFunction> resolve_aggregate(std::string_view name, const types::CqlType& argument);

// The running state of one aggregate over one group of rows.
class AggregateState {
 public:
  explicit AggregateState(const AggregateFunction* function) : function_(function) {}
  void add(const types::Value& value);  // kCountRows ignores the value
  // The aggregate's value, or the error an input caused (a varint or decimal sum whose digits
  // would pass types::kMaxComputedDigits).
  Result<types::Value> result() const;

 private:
  void add_decimal(std::string_view value);
  types::Value final_value() const;

  const AggregateFunction* function_;
  int64_t count_ = 0;
  types::Value best_;          // min / max
  __int128 integer_sum_ = 0;   // integral sums of the fixed-width types
  types::BigInteger big_sum_;  // varint sum; decimal: unscaled sum, or running average
  int32_t decimal_scale_ = 0;
  double double_sum_ = 0;
  double compensation_ = 0;
  double simple_sum_ = 0;
  Status error_;                 // the first input that could not be added
  bool float_overflow_ = false;  // avg of float/double: the double sum overflowed
  long double wide_sum_ = 0;     // ... so the sum continues in extended precision
};

}  // namespace cassette::cql
