// Arithmetic operators in the selection (see selector_operators.h).
#include "engine/cql/selector_operators.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "engine/cql/decimal_math.h"
#include "engine/cql/functions_internal.h"
#include "engine/types/scalar.h"
#include "engine/types/temporal.h"
#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

char symbol_of(std::string_view name) {
  if (name == "_add") return '+';
  if (name == "_substract") return '-';
  if (name == "_multiply") return '*';
  if (name == "_divide") return '/';
  if (name == "_modulo") return '%';
  return 0;
}

// OperationFcts.size(): the byte size of a numeric type, kUnbounded for varint and decimal, 0
// for the other types.
constexpr int kUnbounded = 16;
int size_of(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTinyint:
      return 1;
    case TypeKind::kSmallint:
      return 2;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return 4;
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kDouble:
      return 8;
    case TypeKind::kVarint:
    case TypeKind::kDecimal:
      return kUnbounded;
    default:
      return 0;
  }
}

// NumberType.isFloatingPoint().
bool is_floating(TypeKind kind) {
  return kind == TypeKind::kFloat || kind == TypeKind::kDouble || kind == TypeKind::kDecimal;
}

bool is_string(TypeKind kind) {
  return kind == TypeKind::kText || kind == TypeKind::kAscii;
}

TypeKind result_kind(TypeKind left, TypeKind right) {
  int size = std::max(size_of(left), size_of(right));
  if (is_floating(left) || is_floating(right))
    return size <= 4 ? TypeKind::kFloat : size <= 8 ? TypeKind::kDouble : TypeKind::kDecimal;
  switch (size) {
    case 1:
      return TypeKind::kTinyint;
    case 2:
      return TypeKind::kSmallint;
    case 4:
      return TypeKind::kInt;
    case 8:
      return TypeKind::kBigint;
    default:
      return TypeKind::kVarint;
  }
}

int64_t read_integer(std::string_view bytes) {
  return types::read_signed(bytes);
}

double read_floating(TypeKind kind, std::string_view bytes) {
  if (!is_floating(kind)) return static_cast<double>(read_integer(bytes));
  if (kind == TypeKind::kFloat) return types::read_float(bytes);
  return types::read_double(bytes);
}

std::string write_integer(uint64_t v, int size) {
  return types::store_be(v, static_cast<size_t>(size));
}

std::string write_floating(TypeKind kind, double v) {
  if (kind == TypeKind::kFloat) return types::float_bytes(static_cast<float>(v));
  return types::double_bytes(v);
}

// Java's integer arithmetic at 64 bits (narrowed afterwards, which wraps as Java's casts do).
Result<uint64_t> integer_op(char op, int64_t a, int64_t b, const std::string& what) {
  auto ua = static_cast<uint64_t>(a);
  auto ub = static_cast<uint64_t>(b);
  switch (op) {
    case '+':
      return ua + ub;
    case '-':
      return ua - ub;
    case '*':
      return ua * ub;
    default:
      break;
  }
  if (b == 0)
    return Status::invalid_argument(fmt::format("the operation '{}' failed: / by zero", what));
  if (a == INT64_MIN && b == -1) return op == '/' ? ua : 0;
  return static_cast<uint64_t>(op == '/' ? a / b : a % b);
}

bool is_temporal(TypeKind kind) {
  return kind == TypeKind::kTimestamp || kind == TypeKind::kDate;
}

// OperationFcts' temporal operations: timestamp or date + or - a duration, of that type. The
// duration must be whole milliseconds for a timestamp and whole days for a date
// (TemporalType.validateDuration).
Result<std::shared_ptr<const ScalarFunction>> temporal_operation(std::string_view name, char op,
                                                                 TypeKind kind) {
  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->parameter_types = {CqlType::simple(kind), CqlType::simple(TypeKind::kDuration)};
  f->return_type = CqlType::simple(kind);
  f->apply = [op, kind](std::span<const types::Value> args,
                        const FunctionContext&) -> Result<types::Value> {
    if (args[0]->empty() || args[1]->empty()) return types::Value();
    std::optional<types::Duration> d = types::deserialize_duration(*args[1]);
    if (!d) return Status::invalid_argument("Invalid duration value");
    const bool date = kind == TypeKind::kDate;
    const int64_t unit = date ? int64_t{86400} * 1000000000 : 1000000;
    if (d->nanoseconds % unit != 0)
      return Status::invalid_argument(
          fmt::format("the operation '{} {} duration' failed: The duration must have a {} "
                      "precision. Was: {}",
                      date ? "date" : "timestamp", op, date ? "day" : "millisecond",
                      types::internal::duration_to_string(*d)));
    constexpr int64_t kMillisPerDay = 86400000;
    const int64_t millis =
        date ? (static_cast<int64_t>(types::read_unsigned(*args[0])) - (int64_t{1} << 31)) *
                   kMillisPerDay
             : types::read_signed(*args[0]);
    const int64_t result = functions_internal::add_duration(millis, *d, op == '-');
    if (!date) return types::Value(write_integer(static_cast<uint64_t>(result), 8));
    const int64_t days = result / kMillisPerDay - (result % kMillisPerDay < 0);
    return types::Value(write_integer(static_cast<uint64_t>(days + (int64_t{1} << 31)), 4));
  };
  return std::shared_ptr<const ScalarFunction>(std::move(f));
}

// String concatenation: text + text (ascii when both are ascii), as OperationFcts' string '+'.
std::shared_ptr<const ScalarFunction> concatenation(std::string_view name,
                                                    std::span<const CqlType> arguments) {
  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->parameter_types.assign(arguments.begin(), arguments.end());
  const bool ascii = arguments[0].kind == TypeKind::kAscii && arguments[1].kind == TypeKind::kAscii;
  f->return_type = CqlType::simple(ascii ? TypeKind::kAscii : TypeKind::kText);
  f->apply = [](std::span<const types::Value> args,
                const FunctionContext&) -> Result<types::Value> {
    return types::Value(*args[0] + *args[1]);
  };
  return f;
}

// The operation's failure as OperationFcts reports it.
Status operation_failed(const std::string& what, const Status& cause) {
  return Status::invalid_argument(
      fmt::format("the operation '{}' failed: {}", what, cause.message()));
}

}  // namespace

bool is_operator_function(std::string_view name) {
  return symbol_of(name) != 0 || name == "_negate";
}

Result<std::shared_ptr<const ScalarFunction>> resolve_operator(
    std::string_view name, std::span<const CqlType> arguments,
    std::span<const std::string> operand_texts) {
  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->parameter_types.assign(arguments.begin(), arguments.end());
  const char symbol = symbol_of(name);
  if (arguments.size() == 2 && (symbol == '+' || symbol == '-') && is_temporal(arguments[0].kind) &&
      arguments[1].kind == TypeKind::kDuration)
    return temporal_operation(name, symbol, arguments[0].kind);
  if (arguments.size() == 2 && symbol == '+' && is_string(arguments[0].kind) &&
      is_string(arguments[1].kind))
    return concatenation(name, arguments);
  for (const CqlType& t : arguments) {
    if (size_of(t.kind) != 0) continue;
    if (symbol != 0 && arguments.size() == 2) {
      // OperationFcts names the operands as written: "between a and b", "between time and 10m"
      const bool written = operand_texts.size() == 2;
      return Status::invalid_argument(
          fmt::format("the '{}' operation is not supported between {} and {}", symbol,
                      written ? operand_texts[0] : types::cql_type_name(arguments[0]),
                      written ? operand_texts[1] : types::cql_type_name(arguments[1])));
    }
    return Status::invalid_argument(fmt::format("the '{}' operation is not supported between {}",
                                                name, types::cql_type_name(t)));
  }
  if (name == "_negate" && arguments.size() == 1) {
    TypeKind kind = arguments[0].kind == TypeKind::kCounter ? TypeKind::kBigint : arguments[0].kind;
    f->return_type = CqlType::simple(kind);
    if (size_of(kind) == kUnbounded) {
      f->apply = [type = arguments[0]](std::span<const types::Value> args,
                                       const FunctionContext&) -> Result<types::Value> {
        CASSETTE_ASSIGN_OR_RETURN(std::string negated, big_negate(type, *args[0]));
        return types::Value(std::move(negated));
      };
      return std::shared_ptr<const ScalarFunction>(f);
    }
    f->apply = [kind](std::span<const types::Value> args,
                      const FunctionContext&) -> Result<types::Value> {
      if (is_floating(kind))
        return types::Value(write_floating(kind, -read_floating(kind, *args[0])));
      return types::Value(
          write_integer(0 - static_cast<uint64_t>(read_integer(*args[0])), size_of(kind)));
    };
    return std::shared_ptr<const ScalarFunction>(f);
  }
  const char op = symbol_of(name);
  if (op == 0 || arguments.size() != 2) {
    return Status::invalid_argument(fmt::format("Unknown function '{}'", name));
  }
  const TypeKind left = arguments[0].kind;
  const TypeKind right = arguments[1].kind;
  const TypeKind kind = result_kind(left, right);
  const std::string what = fmt::format("{} {} {}", types::cql_type_name(arguments[0]), op,
                                       types::cql_type_name(arguments[1]));
  f->return_type = CqlType::simple(kind);
  if (size_of(kind) == kUnbounded) {
    const CqlType left_type = arguments[0];
    const CqlType right_type = arguments[1];
    f->apply = [=](std::span<const types::Value> args,
                   const FunctionContext&) -> Result<types::Value> {
      Result<std::string> r =
          kind == TypeKind::kDecimal
              ? decimal_arithmetic(op, left_type, *args[0], right_type, *args[1])
              : varint_arithmetic(op, left_type, *args[0], right_type, *args[1]);
      if (!r.is_ok()) return operation_failed(what, r.status());
      return types::Value(std::move(r).value());
    };
    return std::shared_ptr<const ScalarFunction>(f);
  }
  f->apply = [=](std::span<const types::Value> args,
                 const FunctionContext&) -> Result<types::Value> {
    if (is_floating(kind)) {
      double a = read_floating(left, *args[0]);
      double b = read_floating(right, *args[1]);
      if (kind == TypeKind::kFloat) {
        // Java float arithmetic: each operand and the result rounded to float.
        float x = static_cast<float>(a), y = static_cast<float>(b), r = 0;
        switch (op) {
          case '+':
            r = x + y;
            break;
          case '-':
            r = x - y;
            break;
          case '*':
            r = x * y;
            break;
          case '/':
            r = x / y;
            break;
          default:
            r = std::fmod(x, y);
            break;
        }
        return types::Value(write_floating(kind, r));
      }
      double r = 0;
      switch (op) {
        case '+':
          r = a + b;
          break;
        case '-':
          r = a - b;
          break;
        case '*':
          r = a * b;
          break;
        case '/':
          r = a / b;
          break;
        default:
          r = std::fmod(a, b);
          break;
      }
      return types::Value(write_floating(kind, r));
    }
    CASSETTE_ASSIGN_OR_RETURN(uint64_t r,
                              integer_op(op, read_integer(*args[0]), read_integer(*args[1]), what));
    return types::Value(write_integer(r, size_of(kind)));
  };
  return std::shared_ptr<const ScalarFunction>(f);
}

}  // namespace cassette::cql
