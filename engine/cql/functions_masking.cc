// Cassandra 5.0's masking functions (dynamic data masking, CEP-20): generic over the type of the
// value they mask, so each call builds its own instance, as MaskingFunction.Factory does.
//
//   mask_null(v)                    null, whatever v is
//   mask_default(v)                 a fixed value of v's type ('****', 0, false, 1970-01-01,
//                                   empty collections, tuples/UDTs of masked fields)
//   mask_replace(v, r)              r, typed as v
//   mask_inner(s, begin, end[, p])  s with all but the first `begin` and last `end` characters
//                                   replaced by p ('*' by default)
//   mask_outer(s, begin, end[, p])  s with only the first `begin` and last `end` replaced
//   mask_hash(v[, algorithm])       the digest (SHA-256 by default) of v's serialized bytes
//
// All are called on null input, as Cassandra's native functions are: mask_default(null) is the
// masked value, a null begin/end counts as 0 and a null padding or algorithm as the default.
// Characters are Unicode code points (Java masks UTF-16 code units: only characters outside the
// Basic Multilingual Plane differ).
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include "engine/cql/functions_internal.h"
#include "engine/types/scalar.h"
#include "engine/types/value_internal.h"
#include "engine/util/utf8.h"

namespace cassette::cql::functions_internal {

using types::CqlType;
using types::TypeKind;
using types::Value;

namespace {

constexpr std::string_view kNames[] = {"mask_null",  "mask_default", "mask_replace",
                                       "mask_inner", "mask_outer",   "mask_hash"};

// FunctionFactory.toString(): the name and its parameters, for the arity message.
std::string_view parameters_text(std::string_view name) {
  if (name == "mask_replace") return "any, same";
  if (name == "mask_inner" || name == "mask_outer") return "[text|varchar|ascii], int, int, [text]";
  if (name == "mask_hash") return "any, [text]";
  return "any";
}

bool arity_ok(std::string_view name, size_t n) {
  if (name == "mask_replace") return n == 2;
  if (name == "mask_inner" || name == "mask_outer") return n == 3 || n == 4;
  if (name == "mask_hash") return n == 1 || n == 2;
  return n == 1;
}

bool is_string_type(const CqlType& t) {
  return t.kind == TypeKind::kText || t.kind == TypeKind::kAscii;
}

// The first argument's type: its own, or a literal constant's preferred type.
Result<CqlType> masked_type(std::string_view name, const FunctionArgument& arg) {
  if (arg.type) return *arg.type;
  if (auto t = literal_type(arg)) return *t;
  return Status::invalid_argument(fmt::format(
      "Cannot infer type of argument {} in call to function system.{}({}): use type casts to "
      "disambiguate",
      arg.text, name, parameters_text(name)));
}

// PartialMaskingFunction: position i (0-based) is masked by mask_inner when
// begin <= i <= size-1-end, and by mask_outer otherwise. Positions and sizes are Java's: UTF-16
// code units, so a character outside the BMP counts two (a padding such as '😀' "has 2
// characters"), and half of one kept beside a masked half is a lone surrogate, which Java encodes
// as '?'; an ascii value encodes a non-ASCII padding as '?' too (String.getBytes' replacement).
Result<Value> mask_partial(bool inner, bool ascii, std::string_view fn, std::span<const Value> a) {
  if (!a[0]) return Value();
  const int64_t begin = a[1] && !a[1]->empty() ? types::read_signed(*a[1]) : 0;
  const int64_t end = a[2] && !a[2]->empty() ? types::read_signed(*a[2]) : 0;
  const auto utf16_length = [](const std::vector<uint32_t>& chars) {
    size_t n = 0;
    for (uint32_t c : chars) n += c > 0xFFFF ? 2 : 1;
    return n;
  };
  uint32_t padding = '*';
  if (a.size() > 3 && a[3]) {
    const std::vector<uint32_t> p = utf8::code_points(*a[3]);
    if (utf16_length(p) != 1)
      return Status::invalid_argument(
          fmt::format("The padding argument for function {} should be single-character, but "
                      "'{}' has {} characters.",
                      fn, *a[3], utf16_length(p)));
    padding = p[0];
  }
  if (ascii && padding > 0x7F) padding = '?';
  const std::vector<uint32_t> chars = utf8::code_points(*a[0]);
  const int64_t last = static_cast<int64_t>(utf16_length(chars)) - 1 - end;
  const auto masked = [&](int64_t pos) { return (pos >= begin && pos <= last) == inner; };
  std::string out;
  int64_t pos = 0;
  for (uint32_t c : chars) {
    if (c <= 0xFFFF) {
      utf8::append(&out, masked(pos) ? padding : c);
      pos += 1;
      continue;
    }
    const bool high = masked(pos);
    const bool low = masked(pos + 1);
    if (!high && !low) {
      utf8::append(&out, c);
    } else {
      utf8::append(&out, high ? padding : '?');
      utf8::append(&out, low ? padding : '?');
    }
    pos += 2;
  }
  return Value(std::move(out));
}

// MessageDigest.getInstance's names (case-insensitive), as OpenSSL calls them.
const EVP_MD* digest_named(std::string_view java_name) {
  std::string upper(java_name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  static constexpr std::pair<std::string_view, const char*> kDigests[] = {
      {"MD5", "MD5"},
      {"SHA", "SHA1"},
      {"SHA1", "SHA1"},
      {"SHA-1", "SHA1"},
      {"SHA-224", "SHA224"},
      {"SHA-256", "SHA256"},
      {"SHA-384", "SHA384"},
      {"SHA-512", "SHA512"},
      {"SHA-512/224", "SHA512-224"},
      {"SHA-512/256", "SHA512-256"},
      {"SHA3-224", "SHA3-224"},
      {"SHA3-256", "SHA3-256"},
      {"SHA3-384", "SHA3-384"},
      {"SHA3-512", "SHA3-512"}};
  for (const auto& [java, openssl] : kDigests)
    if (java == upper) return EVP_get_digestbyname(openssl);
  return nullptr;
}

Result<Value> mask_hash(std::span<const Value> a) {
  const std::string algorithm = a.size() > 1 && a[1] ? *a[1] : "SHA-256";
  const EVP_MD* md = digest_named(algorithm);
  if (md == nullptr)
    return Status::invalid_argument(fmt::format("Hash algorithm not found: {}", algorithm));
  if (!a[0]) return Value();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(a[0]->data(), a[0]->size(), digest, &size, md, nullptr) != 1)
    return Status::invalid_argument(fmt::format("Hash algorithm failed: {}", algorithm));
  return Value(std::string(reinterpret_cast<const char*>(digest), size));
}

}  // namespace

std::string masked_default_value(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
      return "****";
    case TypeKind::kBoolean:
    case TypeKind::kTinyint:
      return std::string(1, '\0');
    case TypeKind::kSmallint:
      return std::string(2, '\0');
    case TypeKind::kInt:
      return std::string(4, '\0');
    case TypeKind::kFloat:
      return types::float_bytes(0.0f);
    case TypeKind::kDouble:
      return types::double_bytes(0.0);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
      return std::string(8, '\0');
    case TypeKind::kVarint:
      return std::string(1, '\0');
    case TypeKind::kDecimal:
      return std::string(5, '\0');  // scale 0, unscaled 0
    case TypeKind::kDate:
      return types::store_be(uint64_t{1} << 31, 4);  // 1970-01-01
    case TypeKind::kDuration:
      return std::string(3, '\0');  // 0 months, 0 days, 0 nanoseconds
    case TypeKind::kInet:
      return std::string(4, '\0');  // 0.0.0.0
    case TypeKind::kUuid:
      return std::string(16, '\0');
    case TypeKind::kTimeuuid:
      return types::min_timeuuid(0);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return types::serialize_list({});  // an empty collection: a zero count
    case TypeKind::kVector: {            // VectorType: every element its type's masked value
      const std::vector<std::string> elements(static_cast<size_t>(type.dimension),
                                              masked_default_value(type.params[0]));
      return types::serialize_vector(type, elements);
    }
    case TypeKind::kTuple:
    case TypeKind::kUdt: {
      std::vector<Value> fields;
      for (const CqlType& field : type.params) fields.emplace_back(masked_default_value(field));
      return types::serialize_tuple(fields);
    }
    default:
      return std::string();  // blob: empty
  }
}

bool is_masking_function(std::string_view name) {
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Result<std::shared_ptr<const ScalarFunction>> make_masking_function(
    std::string_view name, std::span<const FunctionArgument> args) {
  if (!arity_ok(name, args.size()))
    return Status::invalid_argument(fmt::format(
        "Invalid number of arguments for function system.{}({})", name, parameters_text(name)));
  CASSETTE_ASSIGN_OR_RETURN(CqlType input, masked_type(name, args[0]));
  auto f = std::make_shared<ScalarFunction>();
  f->name = fmt::format("system.{}", name);
  f->called_on_null_input = true;
  f->parameter_types = {input};
  f->return_type = input;
  const CqlType int_type = CqlType::simple(TypeKind::kInt);
  const CqlType text_type = CqlType::simple(TypeKind::kText);
  if (name == "mask_null") {
    f->apply = [](auto, const FunctionContext&) -> Result<Value> { return Value(); };
  } else if (name == "mask_default") {
    f->apply = [masked = masked_default_value(input)](
                   auto, const FunctionContext&) -> Result<Value> { return Value(masked); };
  } else if (name == "mask_replace") {
    f->parameter_types.push_back(input);
    f->apply = [](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
      return a[1];
    };
  } else if (name == "mask_hash") {
    if (args.size() == 2) f->parameter_types.push_back(text_type);
    f->return_type = CqlType::simple(TypeKind::kBlob);
    f->apply = [](std::span<const Value> a, const FunctionContext&) { return mask_hash(a); };
  } else {
    if (!is_string_type(input))
      return Status::invalid_argument(
          fmt::format("Function system.{} requires an argument of type [text|varchar|ascii], but "
                      "found argument {} of type {}",
                      name, args[0].text, types::cql_type_name(input)));
    f->parameter_types.insert(f->parameter_types.end(), {int_type, int_type});
    if (args.size() == 4) f->parameter_types.push_back(text_type);
    f->apply = [inner = name == "mask_inner", ascii = input.kind == TypeKind::kAscii, fn = f->name](
                   std::span<const Value> a, const FunctionContext&) {
      return mask_partial(inner, ascii, fn, a);
    };
  }
  return std::shared_ptr<const ScalarFunction>(std::move(f));
}

}  // namespace cassette::cql::functions_internal
