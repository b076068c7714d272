// The similarity of two float vectors as Cassandra 5.0 scores it, shared by the
// similarity_* functions and by ANN ordering (ORDER BY v ANN OF [...]), so that a query's order
// and the score a selection shows agree. Scores lie in [0, 1], higher is more similar, and are
// computed in single precision as jvector's VectorSimilarityFunction computes them.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace cassette::cql {

enum class Similarity { kCosine, kEuclidean, kDotProduct };

// "similarity_cosine" -> kCosine, ...; nullopt for any other name.
std::optional<Similarity> similarity_by_function_name(std::string_view name);
// An SAI index's similarity_function option, case-insensitive: "cosine", "euclidean",
// "dot_product"; nullopt for any other value.
std::optional<Similarity> similarity_by_option(std::string_view option);

bool is_zero_vector(std::span<const float> v);

// REQUIRES: a.size() == b.size(); for kCosine neither is all zeros.
float similarity_score(Similarity similarity, std::span<const float> a, std::span<const float> b);

}  // namespace cassette::cql
