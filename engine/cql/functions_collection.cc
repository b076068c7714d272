// Cassandra 5.0's collection functions: map_keys(m) and map_values(m), collection_count(c), and
// collection_min/max/sum/avg(c) over a list or set, which aggregate the elements exactly as the
// aggregates min/max/sum/avg aggregate rows (so an empty collection sums and averages to 0).
#include "engine/cql/aggregates.h"
#include "engine/cql/functions_internal.h"
#include "engine/types/value_internal.h"

namespace cassette::cql::functions_internal {

using types::CqlType;
using types::TypeKind;
using types::Value;

namespace {

constexpr std::string_view kNames[] = {"map_keys",       "map_values",     "collection_count",
                                       "collection_min", "collection_max", "collection_sum",
                                       "collection_avg"};

// The parameter each function accepts, as Cassandra's FunctionParameter prints it in a signature
// (its set-or-list parameter of collection_min/max prints as numeric_set_or_list too).
std::string_view parameter_name(std::string_view name) {
  if (name == "map_keys" || name == "map_values") return "map";
  if (name == "collection_count") return "collection";
  return "numeric_set_or_list";
}

// What an argument must be, as Cassandra's refusal of another one says it.
std::string_view parameter_requirement(std::string_view name) {
  if (name == "map_keys" || name == "map_values") return "a map";
  if (name == "collection_count") return "a collection";
  if (name == "collection_sum" || name == "collection_avg") return "a numeric set/list";
  return "a set or list";
}

bool is_numeric(TypeKind k) {
  switch (k) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
    case TypeKind::kVarint:
      return true;
    default:
      return false;
  }
}

bool accepts(std::string_view name, const CqlType& type) {
  if (name == "map_keys" || name == "map_values") return type.kind == TypeKind::kMap;
  if (name == "collection_count") return type.is_collection();
  const bool set_or_list = type.kind == TypeKind::kList || type.kind == TypeKind::kSet;
  if (name == "collection_sum" || name == "collection_avg")
    return set_or_list && is_numeric(type.params[0].kind);
  return set_or_list;
}

// A collection aggregated element by element with one of the row aggregates.
Result<std::shared_ptr<const ScalarFunction>> aggregation(std::string name, const CqlType& input,
                                                          std::string_view aggregate) {
  CASSETTE_ASSIGN_OR_RETURN(AggregateFunction agg, resolve_aggregate(aggregate, input.params[0]));
  auto f = std::make_shared<ScalarFunction>();
  f->name = "system." + name;
  f->parameter_types = {input};
  f->return_type = agg.result;
  f->apply = [agg](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
    if (!a[0]) return Value();
    CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements, types::deserialize_list(*a[0]));
    AggregateState state(&agg);
    for (std::string& e : elements) state.add(Value(std::move(e)));
    return state.result();
  };
  return std::shared_ptr<const ScalarFunction>(std::move(f));
}

}  // namespace

bool is_collection_function(std::string_view name) {
  for (std::string_view n : kNames)
    if (n == name) return true;
  return false;
}

Result<std::shared_ptr<const ScalarFunction>> make_collection_function(
    std::string_view name, std::span<const FunctionArgument> args) {
  const std::string signature = fmt::format("system.{}({})", name, parameter_name(name));
  if (args.size() != 1)
    return Status::invalid_argument(
        fmt::format("Invalid number of arguments for function {}", signature));
  if (!args[0].type)
    return Status::invalid_argument(fmt::format(
        "Cannot infer type of argument {} in call to function {}: use type casts to disambiguate",
        args[0].text, signature));
  const CqlType& input = *args[0].type;
  if (!accepts(name, input))
    return Status::invalid_argument(
        fmt::format("Function system.{} requires {} argument, but found argument {} of type {}",
                    name, parameter_requirement(name), args[0].text, types::cql_type_name(input)));
  if (name == "collection_min") return aggregation(std::string(name), input, "min");
  if (name == "collection_max") return aggregation(std::string(name), input, "max");
  if (name == "collection_sum") return aggregation(std::string(name), input, "sum");
  if (name == "collection_avg") return aggregation(std::string(name), input, "avg");

  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->parameter_types = {input};
  if (name == "collection_count") {
    f->return_type = CqlType::simple(TypeKind::kInt);
    f->apply = [input](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
      if (!a[0]) return Value();
      size_t n = 0;
      if (input.kind == TypeKind::kMap) {
        CASSETTE_ASSIGN_OR_RETURN(auto entries, types::deserialize_map(*a[0]));
        n = entries.size();
      } else {
        CASSETTE_ASSIGN_OR_RETURN(auto elements, types::deserialize_list(*a[0]));
        n = elements.size();
      }
      return Value(types::store_be(static_cast<uint32_t>(n), 4));
    };
    return std::shared_ptr<const ScalarFunction>(std::move(f));
  }
  const bool keys = name == "map_keys";
  const CqlType element = input.params[keys ? 0 : 1];
  f->return_type = keys ? CqlType::set(element) : CqlType::list(element);
  f->apply = [keys, element](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
    if (!a[0]) return Value();
    CASSETTE_ASSIGN_OR_RETURN(auto entries, types::deserialize_map(*a[0]));
    std::vector<std::string> out;
    for (auto& [k, v] : entries) out.push_back(keys ? std::move(k) : std::move(v));
    return Value(keys ? types::serialize_set(element, std::move(out)) : types::serialize_list(out));
  };
  return std::shared_ptr<const ScalarFunction>(std::move(f));
}

}  // namespace cassette::cql::functions_internal
