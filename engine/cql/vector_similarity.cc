#include "engine/cql/vector_similarity.h"

#include <cctype>
#include <cmath>
#include <string>

namespace cassette::cql {

std::optional<Similarity> similarity_by_function_name(std::string_view name) {
  if (name == "similarity_cosine") return Similarity::kCosine;
  if (name == "similarity_euclidean") return Similarity::kEuclidean;
  if (name == "similarity_dot_product") return Similarity::kDotProduct;
  return std::nullopt;
}

std::optional<Similarity> similarity_by_option(std::string_view option) {
  std::string lower(option);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cosine") return Similarity::kCosine;
  if (lower == "euclidean") return Similarity::kEuclidean;
  if (lower == "dot_product") return Similarity::kDotProduct;
  return std::nullopt;
}

bool is_zero_vector(std::span<const float> v) {
  for (float f : v)
    if (f != 0.0f) return false;
  return true;
}

float similarity_score(Similarity similarity, std::span<const float> a, std::span<const float> b) {
  float dot = 0, norm_a = 0, norm_b = 0, distance = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    norm_a += a[i] * a[i];
    norm_b += b[i] * b[i];
    const float d = a[i] - b[i];
    distance += d * d;
  }
  switch (similarity) {
    case Similarity::kCosine:
      return (1 + dot / static_cast<float>(std::sqrt(static_cast<double>(norm_a) * norm_b))) / 2;
    case Similarity::kEuclidean:
      return 1 / (1 + distance);
    case Similarity::kDotProduct:
      return (1 + dot) / 2;
  }
  return 0;
}

}  // namespace cassette::cql
