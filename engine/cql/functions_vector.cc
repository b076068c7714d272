// Cassandra 5.0's vector similarity functions (VectorFcts): similarity_cosine,
// similarity_euclidean and similarity_dot_product of two vector<float, n>, each a float in
// [0, 1] where 1 is most similar, computed in single precision as jvector's
// VectorSimilarityFunction does:
//   cosine      (1 + a.b / sqrt(|a|^2 |b|^2)) / 2   (refuses an all-zero vector)
//   euclidean   1 / (1 + |a - b|^2)
//   dot product (1 + a.b) / 2
// They are generic over n: the dimension comes from the first argument whose type is known (a
// column, a cast, a literal's element count), so each call builds its own instance.
#include <fmt/format.h>

#include "engine/cql/functions_internal.h"
#include "engine/cql/vector_similarity.h"
#include "engine/types/scalar.h"

namespace cassette::cql::functions_internal {

using types::CqlType;
using types::TypeKind;
using types::Value;

namespace {

bool is_float_vector(const CqlType& type) {
  return type.kind == TypeKind::kVector && type.params.at(0).kind == TypeKind::kFloat;
}

// The dimension an argument brings, checking that it can be a float vector at all.
Result<std::optional<int32_t>> argument_dimension(const std::string& function,
                                                  const FunctionArgument& arg) {
  if (arg.type) {
    if (!is_float_vector(*arg.type))
      return Status::invalid_argument(
          fmt::format("Function {} requires a float vector argument, but found argument {} of "
                      "type {}",
                      function, arg.text, types::cql_type_name(*arg.type)));
    return std::optional<int32_t>(arg.type->dimension);
  }
  if (arg.list_literal_size) return std::optional<int32_t>(*arg.list_literal_size);
  return std::optional<int32_t>();
}

}  // namespace

bool is_vector_function(std::string_view name) {
  return similarity_by_function_name(name).has_value();
}

Result<std::shared_ptr<const ScalarFunction>> make_vector_function(
    std::string_view name, std::span<const FunctionArgument> args) {
  const Similarity similarity = *similarity_by_function_name(name);
  const std::string function = fmt::format("system.{}", name);
  if (args.size() != 2)
    return Status::invalid_argument(
        fmt::format("Invalid number of arguments for function {}(vector<float, n>, "
                    "vector<float, n>)",
                    function));
  std::optional<int32_t> dimension;
  for (const FunctionArgument& arg : args) {
    CASSETTE_ASSIGN_OR_RETURN(std::optional<int32_t> d, argument_dimension(function, arg));
    if (d && dimension && *d != *dimension)
      return Status::invalid_argument("All arguments must have the same vector dimensions");
    if (d) dimension = d;
  }
  if (!dimension) {
    // Cassandra names a null literal as its parser spells it: NULL
    const std::string& text = args[0].text;
    const bool is_null = text.size() == 4 && (text[0] == 'n' || text[0] == 'N') &&
                         (text == "null" || text == "NULL" || text == "Null");
    return Status::invalid_argument(
        fmt::format("Cannot infer type of argument {} in call to function {}",
                    is_null ? "NULL" : text, function));
  }
  if (*dimension < 1)
    return Status::invalid_argument(
        fmt::format("vectors may only have positive dimensions; given {}", *dimension));

  const CqlType vector = CqlType::vector(CqlType::simple(TypeKind::kFloat), *dimension);
  auto f = std::make_shared<ScalarFunction>();
  f->name = function;
  f->parameter_types = {vector, vector};
  f->return_type = CqlType::simple(TypeKind::kFloat);
  f->apply = [similarity, function, dimension = *dimension](
                 std::span<const Value> a, const FunctionContext&) -> Result<Value> {
    if (!a[0] || !a[1]) return Value();
    CASSETTE_ASSIGN_OR_RETURN(std::vector<float> x, types::vector_floats(*a[0], dimension));
    CASSETTE_ASSIGN_OR_RETURN(std::vector<float> y, types::vector_floats(*a[1], dimension));
    if (similarity == Similarity::kCosine && (is_zero_vector(x) || is_zero_vector(y)))
      return Status::invalid_argument(
          fmt::format("Function {} doesn't support all-zero vectors", function));
    return Value(types::float_bytes(similarity_score(similarity, x, y)));
  };
  return std::shared_ptr<const ScalarFunction>(std::move(f));
}

}  // namespace cassette::cql::functions_internal
