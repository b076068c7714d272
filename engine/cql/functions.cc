// The native scalar functions and their resolution (Cassandra's TimeFcts, UuidFcts,
// BytesConversionFcts, FromJsonFct and FunctionResolver).
//
// The function table is built once: every function has Cassandra's lower-case name and prints
// as "system.<name>". Resolution follows FunctionResolver.get(): one candidate is checked
// argument by argument (precise messages); several are filtered, an exact match wins, a single
// weak match wins, more are ambiguous.
#include "engine/cql/functions.h"

#include <cctype>
#include <cstdlib>

#include "engine/cql/functions_internal.h"
#include "engine/cql/selector_operators.h"
#include "engine/types/value_internal.h"

namespace cassette::cql {

using types::CqlType;
using types::TypeKind;
using types::Value;

namespace functions_internal {

void add_function(Functions* fns, std::string name, std::vector<CqlType> params, CqlType ret,
                  Apply apply) {
  auto f = std::make_shared<ScalarFunction>();
  f->name = "system." + name;
  f->parameter_types = std::move(params);
  f->return_type = std::move(ret);
  f->apply = std::move(apply);
  fns->emplace(std::move(name), std::move(f));
}

std::string signature(const ScalarFunction& f, std::span<const bool> constant) {
  std::string params;
  for (size_t i = 0; i < f.parameter_types.size(); ++i) {
    if (i > 0) params += ", ";
    params += types::cql_type_name(f.parameter_types[i]);
    if (i < constant.size() && constant[i]) params += "(constant)";
  }
  return fmt::format("{} : ({}) -> {}", f.name, params, types::cql_type_name(f.return_type));
}

}  // namespace functions_internal

namespace {

using functions_internal::Functions;

CqlType simple(TypeKind k) {
  return CqlType::simple(k);
}

Value bigint_value(int64_t v) {
  return types::store_be(static_cast<uint64_t>(v), 8);
}
Value date_value(int64_t epoch_days) {
  return types::store_be(static_cast<uint32_t>(epoch_days + (int64_t{1} << 31)), 4);
}
int64_t millis_of_timestamp(std::string_view b) {
  return types::read_signed(b);
}
int64_t millis_of_date(std::string_view b) {
  return (static_cast<int64_t>(types::read_unsigned(b)) - (int64_t{1} << 31)) * 86400000;
}
int64_t millis_of_timeuuid(std::string_view b) {
  const int64_t micros = types::timeuuid_micros(b);
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}
// TimeUnit.MILLISECONDS.toDays truncates toward zero, as Cassandra's toDate() does.
int64_t days_of_millis(int64_t millis) {
  return millis / 86400000;
}

// Arguments of a strict function are never null when apply runs (the caller returns null first),
// but an empty value (zero bytes) may still come in: Cassandra's functions return null for it.
bool empty(const Value& v) {
  return !v || v->empty();
}

void add(Functions* fns, std::string name, std::vector<CqlType> params, CqlType ret,
         functions_internal::Apply apply) {
  functions_internal::add_function(fns, std::move(name), std::move(params), std::move(ret),
                                   std::move(apply));
}

Value now_timeuuid(const FunctionContext& ctx) {
  // No two now() calls of the process return the same timeuuid (of one statement, of two
  // sessions in the same microsecond): a later one takes the next microsecond.
  const int64_t micros = types::unique_timeuuid_micros(ctx.now_micros);
  const uint64_t low =
      ctx.clock_seq_and_node != 0 ? ctx.clock_seq_and_node : types::process_clock_seq_and_node();
  return types::make_timeuuid(micros, low);
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

void add_time_functions(Functions* fns) {
  const CqlType timeuuid = simple(TypeKind::kTimeuuid), timestamp = simple(TypeKind::kTimestamp),
                date = simple(TypeKind::kDate), time = simple(TypeKind::kTime),
                bigint = simple(TypeKind::kBigint);
  // Cassandra 5.0 adds snake_case names next to the 4.x ones; both are accepted.
  for (std::string name : {"now", "currenttimeuuid", "current_timeuuid"})
    add(fns, name, {}, timeuuid,
        [](auto, const FunctionContext& ctx) -> Result<Value> { return now_timeuuid(ctx); });
  for (std::string name : {"currenttimestamp", "current_timestamp"})
    add(fns, name, {}, timestamp, [](auto, const FunctionContext& ctx) -> Result<Value> {
      return bigint_value(floor_div(ctx.now_micros, 1000));
    });
  for (std::string name : {"currentdate", "current_date"})
    add(fns, name, {}, date, [](auto, const FunctionContext& ctx) -> Result<Value> {
      return date_value(floor_div(ctx.now_micros, int64_t{86400} * 1000000));
    });
  for (std::string name : {"currenttime", "current_time"})
    add(fns, name, {}, time, [](auto, const FunctionContext& ctx) -> Result<Value> {
      const int64_t day = int64_t{86400} * 1000000;
      return bigint_value((ctx.now_micros - floor_div(ctx.now_micros, day) * day) * 1000);
    });
  for (std::string name : {"mintimeuuid", "min_timeuuid"})
    add(fns, name, {timestamp}, timeuuid,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return Value(types::min_timeuuid(millis_of_timestamp(*a[0])));
        });
  for (std::string name : {"maxtimeuuid", "max_timeuuid"})
    add(fns, name, {timestamp}, timeuuid,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return Value(types::max_timeuuid(millis_of_timestamp(*a[0])));
        });
  // dateOf() and unixTimestampOf(), deprecated in 4.x, are gone in 5.0: calls are unknown
  // functions, as there (use toTimestamp() and toUnixTimestamp()).
  for (std::string name : {"todate", "to_date"}) {
    add(fns, name, {timeuuid}, date,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return date_value(days_of_millis(millis_of_timeuuid(*a[0])));
        });
    add(fns, name, {timestamp}, date,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return date_value(days_of_millis(millis_of_timestamp(*a[0])));
        });
  }
  for (std::string name : {"totimestamp", "to_timestamp"}) {
    add(fns, name, {timeuuid}, timestamp,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return bigint_value(millis_of_timeuuid(*a[0]));
        });
    add(fns, name, {date}, timestamp,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return bigint_value(millis_of_date(*a[0]));
        });
  }
  for (std::string name : {"tounixtimestamp", "to_unix_timestamp"}) {
    add(fns, name, {timeuuid}, bigint,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return bigint_value(millis_of_timeuuid(*a[0]));
        });
    add(fns, name, {timestamp}, bigint,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return bigint_value(millis_of_timestamp(*a[0]));
        });
    add(fns, name, {date}, bigint,
        [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
          if (empty(a[0])) return Value();
          return bigint_value(millis_of_date(*a[0]));
        });
  }
}

// blobAsType(): the blob unchanged when it is a valid value of the type.
functions_internal::Apply from_blob_function(const CqlType& type, std::string fn_name) {
  return [type, fn_name](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
    if (a[0] && !types::validate_value(type, *a[0]).is_ok())
      return Status::invalid_argument(
          fmt::format("In call to function {}, value 0x{} is not a valid binary "
                      "representation for type {}",
                      fn_name, types::to_hex(*a[0]), types::cql_type_name(type)));
    return a[0];
  };
}

void add_blob_functions(Functions* fns) {
  // every native type, with varchar as a second name for text
  std::vector<std::pair<std::string, CqlType>> types;
  for (int k = static_cast<int>(TypeKind::kAscii); k <= static_cast<int>(TypeKind::kVarint); ++k) {
    const CqlType t = simple(static_cast<TypeKind>(k));
    types.emplace_back(types::cql_type_name(t), t);
  }
  types.emplace_back("varchar", simple(TypeKind::kText));
  const CqlType blob = simple(TypeKind::kBlob);
  for (const auto& [name, type] : types) {
    // 4.x's intasblob/blobasint and 5.0's int_as_blob/blob_as_int
    for (const std::string& to_blob : {name + "asblob", name + "_as_blob"})
      add(fns, to_blob, {type}, blob,
          [](std::span<const Value> a, const FunctionContext&) -> Result<Value> { return a[0]; });
    if (type.kind == TypeKind::kBlob) continue;  // blobasblob is the one above
    for (const std::string& from_blob : {"blobas" + name, "blob_as_" + name})
      add(fns, from_blob, {blob}, type, from_blob_function(type, "system." + from_blob));
  }
}

const Functions& native_functions() {
  // never destroyed: threads of the process may call functions while exit() runs
  static const Functions& kFunctions = *new const Functions([] {
    Functions fns;
    add_time_functions(&fns);
    add_blob_functions(&fns);
    functions_internal::add_floor_functions(&fns);
    functions_internal::add_math_functions(&fns);
    add(&fns, "uuid", {}, simple(TypeKind::kUuid),
        [](auto, const FunctionContext&) -> Result<Value> { return Value(types::random_uuid()); });
    return fns;
  }());
  return kFunctions;
}

std::shared_ptr<const ScalarFunction> from_json_function(const CqlType& receiver,
                                                         std::string_view name) {
  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->parameter_types = {simple(TypeKind::kText)};
  f->return_type = receiver;
  f->apply = [receiver, fn = f->name](std::span<const Value> a,
                                      const FunctionContext&) -> Result<Value> {
    if (!a[0]) return Value();
    auto v = types::from_json(receiver, *a[0], "");
    if (v.is_ok()) return v;
    const std::string& message = v.status().message();
    // FunctionExecutionException.create(): the failing exception's toString()
    if (message.starts_with("Could not decode JSON string"))
      return Status::invalid_argument(
          fmt::format("execution of '{}[text]' failed: {}", fn, message));
    return Status::invalid_argument(
        fmt::format("execution of '{}[text]' failed: "
                    "org.apache.cassandra.serializers.MarshalException: {}",
                    fn, message));
  };
  return f;
}

// ---- resolution ----

enum class Match { kNone, kWeak, kExact };

// AbstractType.isValueCompatibleWith for the native types: whether a value of `from` can be
// read as `to`.
bool value_compatible(const CqlType& to, const CqlType& from) {
  if (to == from) return true;
  switch (to.kind) {
    case TypeKind::kBlob:
      return true;
    case TypeKind::kText:
      return from.kind == TypeKind::kAscii;
    case TypeKind::kVarint:
      return from.kind == TypeKind::kInt || from.kind == TypeKind::kBigint ||
             from.kind == TypeKind::kTimestamp;
    case TypeKind::kUuid:
      return from.kind == TypeKind::kTimeuuid;
    case TypeKind::kBigint:
      return from.kind == TypeKind::kTimestamp;
    case TypeKind::kTimestamp:
      return from.kind == TypeKind::kBigint;
    default:
      return false;
  }
}

// A literal argument as its lexical kind and constant text, read from the way Cassandra writes
// it (Term.Raw.getText(): 'quoted' strings, bare numbers, uuids, hex, booleans, durations), for
// callers that pass the text without the kind. Collection, tuple and UDT literals come back as
// kNone: they never suit a native parameter type.
struct Literal {
  enum class Shape { kUnknown, kConstant, kComposite } shape = Shape::kUnknown;
  types::ConstantKind kind = types::ConstantKind::kString;
  std::string text;
};

bool all_of(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

Literal infer_literal(std::string_view text) {
  using types::ConstantKind;
  Literal lit;
  lit.shape = Literal::Shape::kConstant;
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
    lit.kind = ConstantKind::kString;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      lit.text.push_back(text[i]);
      if (text[i] == '\'' && text[i + 1] == '\'') ++i;  // '' is one quote
    }
    return lit;
  }
  if (text.size() >= 4 && text.starts_with("$$") && text.ends_with("$$")) {
    lit.kind = ConstantKind::kString;
    lit.text = std::string(text.substr(2, text.size() - 4));
    return lit;
  }
  lit.text = std::string(text);
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view unsigned_text = std::string_view(lower).substr(lower.starts_with("-") ? 1 : 0);
  if (lower == "true" || lower == "false") {
    lit.kind = ConstantKind::kBoolean;
  } else if (lower.starts_with("0x") && std::string_view(lower).substr(2).find_first_not_of(
                                            "0123456789abcdef") == std::string_view::npos) {
    lit.kind = ConstantKind::kHex;
  } else if (lower.size() == 36 && types::internal::parse_uuid_text(lower)) {
    lit.kind = ConstantKind::kUuid;
  } else if (all_of(unsigned_text, "0123456789")) {
    lit.kind = ConstantKind::kInteger;
  } else if (unsigned_text == "nan" || unsigned_text == "infinity" ||
             (all_of(unsigned_text, "0123456789.e+-") &&
              unsigned_text.find_first_of("0123456789") == 0)) {
    lit.kind = ConstantKind::kFloat;
  } else if (!unsigned_text.empty() &&
             (std::isdigit(static_cast<unsigned char>(unsigned_text[0])) ||
              unsigned_text[0] == 'p')) {
    lit.kind = ConstantKind::kDuration;
  } else if (text.starts_with("[") || text.starts_with("{") || text.starts_with("(")) {
    lit.shape = Literal::Shape::kComposite;
  } else {
    lit.shape = Literal::Shape::kUnknown;  // null, a bind marker, something else
  }
  return lit;
}

// The type a constant is an exact match for (Constants.Type.getPreferedTypeFor): the smallest
// of int/bigint/varint for an INTEGER, double when a FLOAT reads back exactly (else decimal),
// ascii for an all-ASCII STRING (else text), timeuuid for a version-1 UUID, tinyint for HEX.
std::optional<CqlType> preferred_type(types::ConstantKind kind, std::string_view text) {
  using types::ConstantKind;
  switch (kind) {
    case ConstantKind::kString: {
      bool ascii = true;
      for (char c : text) ascii = ascii && static_cast<uint8_t>(c) < 0x80;
      return CqlType::simple(ascii ? TypeKind::kAscii : TypeKind::kText);
    }
    case ConstantKind::kInteger:
      for (TypeKind k : {TypeKind::kInt, TypeKind::kBigint}) {
        if (types::parse_value_string(CqlType::simple(k), text).is_ok()) return CqlType::simple(k);
      }
      return CqlType::simple(TypeKind::kVarint);
    case ConstantKind::kFloat: {
      std::string_view body = text.starts_with("-") ? text.substr(1) : text;
      if (body == "NaN" || body == "Infinity") return CqlType::simple(TypeKind::kDouble);
      const CqlType decimal = CqlType::simple(TypeKind::kDecimal);
      auto exact = types::parse_value_string(decimal, text);
      auto rounded = types::parse_value_string(
          decimal,
          types::internal::java_double_to_string(std::strtod(std::string(text).c_str(), nullptr)));
      if (exact.is_ok() && rounded.is_ok() && types::compare_values(decimal, *exact, *rounded) == 0)
        return CqlType::simple(TypeKind::kDouble);
      return decimal;
    }
    case ConstantKind::kBoolean:
      return CqlType::simple(TypeKind::kBoolean);
    case ConstantKind::kUuid: {
      auto bytes = types::internal::parse_uuid_text(text);
      return CqlType::simple(bytes && types::internal::uuid_version(*bytes) == 1
                                 ? TypeKind::kTimeuuid
                                 : TypeKind::kUuid);
    }
    case ConstantKind::kHex:
      return CqlType::simple(TypeKind::kTinyint);
    case ConstantKind::kDuration:
      return CqlType::simple(TypeKind::kDuration);
  }
  return std::nullopt;
}

}  // namespace

std::optional<CqlType> functions_internal::literal_type(const FunctionArgument& arg) {
  if (arg.constant_kind) return preferred_type(*arg.constant_kind, arg.text);
  const Literal lit = infer_literal(arg.text);
  if (lit.shape != Literal::Shape::kConstant) return std::nullopt;
  return preferred_type(lit.kind, lit.text);
}

namespace {

Match match_argument(const FunctionArgument& arg, const CqlType& param) {
  if (arg.type) {
    if (*arg.type == param) return Match::kExact;
    return value_compatible(param, *arg.type) ? Match::kWeak : Match::kNone;
  }
  Literal lit;
  if (arg.constant_kind) {
    lit.shape = Literal::Shape::kConstant;
    lit.kind = *arg.constant_kind;
    lit.text = arg.text;
  } else {
    lit = infer_literal(arg.text);
  }
  if (lit.shape == Literal::Shape::kComposite) {
    const bool composite_param =
        param.is_collection() || param.kind == TypeKind::kTuple || param.kind == TypeKind::kUdt;
    return composite_param ? Match::kWeak : Match::kNone;
  }
  if (lit.shape == Literal::Shape::kConstant) {
    // A literal is assignable when its kind suits the type (a parse error of the right kind,
    // like an out-of-range integer, is reported later, as Cassandra does).
    auto error = types::constant_error(param, lit.kind, lit.text, "x");
    if (error && error->starts_with("Invalid ") && error->find(" constant (") != std::string::npos)
      return Match::kNone;
    if (param == preferred_type(lit.kind, lit.text)) return Match::kExact;
  }
  return Match::kWeak;  // also a bind marker or null
}

Match match_arguments(const ScalarFunction& f, std::span<const FunctionArgument> args) {
  if (f.parameter_types.size() != args.size()) return Match::kNone;
  Match result = Match::kExact;
  for (size_t i = 0; i < args.size(); ++i) {
    const Match m = match_argument(args[i], f.parameter_types[i]);
    if (m == Match::kNone) return Match::kNone;
    if (m == Match::kWeak) result = Match::kWeak;
  }
  return result;
}

std::string signatures(const std::vector<std::shared_ptr<const ScalarFunction>>& fns) {
  std::string out;
  for (size_t i = 0; i < fns.size(); ++i) {
    if (i > 0) out += ", ";
    out += functions_internal::signature(*fns[i]);
  }
  return out;
}

// toJson()/fromJson() and their 5.0 names to_json()/from_json()
bool is_to_json(std::string_view name) {
  return name == "tojson" || name == "to_json";
}
bool is_from_json(std::string_view name) {
  return name == "fromjson" || name == "from_json";
}
// The name the messages use: "toJson" as 4.x wrote it, or the snake_case name as called.
std::string_view json_name(std::string_view name) {
  if (name == "tojson") return "toJson";
  if (name == "fromjson") return "fromJson";
  return name;
}

// The native function name a call refers to: "foo" and "system.foo" do; "ks.foo" does not.
std::optional<std::string> native_name(std::string_view name) {
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::string(name);
  if (name.substr(0, dot) != "system") return std::nullopt;
  return std::string(name.substr(dot + 1));
}

}  // namespace

bool is_native_function(std::string_view name) {
  auto native = native_name(name);
  if (!native) return false;
  return is_to_json(*native) || is_from_json(*native) ||
         functions_internal::is_collection_function(*native) ||
         functions_internal::is_vector_function(*native) ||
         functions_internal::is_masking_function(*native) || native_functions().count(*native) > 0;
}

Result<std::shared_ptr<const ScalarFunction>> resolve_function(
    std::string_view name, std::span<const FunctionArgument> arguments,
    const std::optional<CqlType>& receiver) {
  const auto native = native_name(name);
  if (native && is_to_json(*native)) {
    // Only a selector can call toJson() (Selectable.WithToJSonFunction); a selector has no
    // receiver, and the selection resolves a one-argument call with a known type itself.
    if (receiver || (arguments.size() == 1 && arguments[0].type))
      return Status::invalid_argument(
          fmt::format("{}() may only be used within the selection clause of SELECT statements",
                      json_name(*native)));
    if (arguments.size() != 1)
      return Status::invalid_argument(fmt::format("{}() only accepts one argument (got {})",
                                                  json_name(*native), arguments.size()));
    return Status::invalid_argument(fmt::format(
        "Cannot infer type for term {} in selection clause (try using a cast to force a type)",
        arguments[0].text));
  }
  if (native && is_from_json(*native)) {
    if (!receiver)
      return Status::invalid_argument(fmt::format(
          "{}() cannot be used in the selection clause of a SELECT statement", json_name(*native)));
    if (arguments.size() != 1)
      return Status::invalid_argument(fmt::format("{}() only accepts one argument (got {})",
                                                  json_name(*native), arguments.size()));
    return from_json_function(*receiver, *native);
  }
  if (native && receiver && is_operator_function(*native)) {
    // Arithmetic in a term (WHERE c = 1 + 2, SET v = 2 * 3): FunctionResolver picks, among the
    // operations its untyped operands fit, the one whose parameters are both the receiver's type.
    // (The selection has no receiver: it types literal operands itself.)
    std::vector<CqlType> operand_types;
    for (const FunctionArgument& a : arguments) {
      const bool duration = !a.type && a.constant_kind == types::ConstantKind::kDuration;
      operand_types.push_back(a.type     ? *a.type
                              : duration ? simple(TypeKind::kDuration)  // ts - 1d
                                         : *receiver);
    }
    std::vector<std::string> operand_texts;
    for (const FunctionArgument& a : arguments) operand_texts.push_back(a.text);
    return resolve_operator(*native, operand_types, operand_texts);
  }
  if (native && functions_internal::is_collection_function(*native))
    return functions_internal::make_collection_function(*native, arguments);
  if (native && functions_internal::is_vector_function(*native))
    return functions_internal::make_vector_function(*native, arguments);
  std::vector<std::shared_ptr<const ScalarFunction>> candidates;
  if (native && functions_internal::is_masking_function(*native)) {
    // one instance for these arguments' types, checked below as any single overload
    CASSETTE_ASSIGN_OR_RETURN(auto masking,
                              functions_internal::make_masking_function(*native, arguments));
    candidates.push_back(std::move(masking));
  } else if (native) {
    auto [begin, end] = native_functions().equal_range(*native);
    for (auto it = begin; it != end; ++it) candidates.push_back(it->second);
  }
  if (candidates.empty())
    return Status::invalid_argument(fmt::format("Unknown function '{}'", name));

  if (candidates.size() == 1) {
    const ScalarFunction& f = *candidates[0];
    if (f.parameter_types.size() != arguments.size())
      return Status::invalid_argument(fmt::format(
          "Invalid number of arguments in call to function {}: {} required but {} provided", f.name,
          f.parameter_types.size(), arguments.size()));
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (match_argument(arguments[i], f.parameter_types[i]) == Match::kNone)
        return Status::invalid_argument(
            fmt::format("Type error: {} cannot be passed as argument {} of function {} of type {}",
                        arguments[i].text, i, f.name, types::cql_type_name(f.parameter_types[i])));
    }
    return candidates[0];
  }

  std::vector<std::shared_ptr<const ScalarFunction>> compatibles;
  for (const auto& f : candidates) {
    if (receiver && !value_compatible(*receiver, f->return_type)) continue;
    const Match m = match_arguments(*f, arguments);
    if (m == Match::kExact) return f;
    if (m == Match::kWeak) compatibles.push_back(f);
  }
  if (compatibles.empty())
    return Status::invalid_argument(
        fmt::format("Invalid call to function {}, none of its type signatures match (known type "
                    "signatures: {})",
                    name, signatures(candidates)));
  if (compatibles.size() > 1)
    return Status::invalid_argument(
        fmt::format("Ambiguous call to function {} (can be matched by following signatures: {}): "
                    "use type casts to "
                    "disambiguate",
                    name, signatures(compatibles)));
  return compatibles[0];
}

}  // namespace cassette::cql
