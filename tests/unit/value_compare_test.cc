// compare_values must agree with the byte-comparable key encoding: for random values of every
// key type, sign(compare_values(a, b)) == sign(memcmp(encode(a), encode(b))) whenever
// compare_values says they differ.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "engine/types/byte_comparable.h"
#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

int sign(int v) {
  return (v > 0) - (v < 0);
}

std::string random_value(const CqlType& type, std::mt19937_64& rng) {
  auto bytes = [&](size_t n) {
    std::string out(n, '\0');
    for (char& c : out) c = static_cast<char>(rng() % 4 == 0 ? (rng() % 3 == 0 ? 0 : 0xFF) : rng());
    return out;
  };
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
    case TypeKind::kBlob:
      return bytes(rng() % 5);
    case TypeKind::kInet:
      return bytes(rng() % 2 ? 4 : 16);
    case TypeKind::kBoolean:  // a key holds no other byte (byte_comparable.cc)
      return std::string(1, static_cast<char>(rng() % 2));
    case TypeKind::kTinyint:
      return bytes(1);
    case TypeKind::kSmallint:
      return bytes(2);
    case TypeKind::kInt:
    case TypeKind::kDate:
      return bytes(4);
    case TypeKind::kBigint:
    case TypeKind::kTimestamp:
      return bytes(8);
    case TypeKind::kTime:
      return types::store_be(rng() % (uint64_t{86400} * 1000000000), 8);
    case TypeKind::kFloat: {
      static const float kSpecial[] = {0.0f,    -0.0f,     1.0f,       -1.0f, 1e30f,
                                       -1e-30f, HUGE_VALF, -HUGE_VALF, NAN};
      float f = rng() % 2 ? kSpecial[rng() % 9]
                          : static_cast<float>(static_cast<int32_t>(rng())) / 1000.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return types::store_be(bits, 4);
    }
    case TypeKind::kDouble: {
      static const double kSpecial[] = {0.0,     -0.0,     1.0,       -1.0, 1e300,
                                        -1e-300, HUGE_VAL, -HUGE_VAL, NAN};
      double d =
          rng() % 2 ? kSpecial[rng() % 9] : static_cast<double>(static_cast<int64_t>(rng())) / 1e6;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return types::store_be(bits, 8);
    }
    case TypeKind::kVarint: {
      const std::string b = bytes(1 + rng() % 4);
      return b;
    }
    case TypeKind::kDecimal: {
      const int32_t scale = static_cast<int32_t>(rng() % 7) - 3;
      return types::store_be(static_cast<uint32_t>(scale), 4) + bytes(1 + rng() % 3);
    }
    case TypeKind::kUuid: {
      std::string b = bytes(16);
      b[6] = static_cast<char>((b[6] & 0x0F) | ((rng() % 3 == 0 ? 4 : rng() % 2 + 1) << 4));
      return b;
    }
    case TypeKind::kTimeuuid: {
      std::string b = bytes(16);
      b[6] = static_cast<char>((b[6] & 0x0F) | 0x10);
      return b;
    }
    case TypeKind::kList:
    case TypeKind::kSet: {
      std::vector<std::string> elements;
      for (size_t i = rng() % 3; i > 0; --i) elements.push_back(random_value(type.params[0], rng));
      return serialize_list(elements);
    }
    case TypeKind::kMap: {
      std::string out = types::store_be(0, 4);
      std::vector<std::pair<std::string, std::string>> entries;
      for (size_t i = rng() % 3; i > 0; --i)
        entries.emplace_back(random_value(type.params[0], rng), random_value(type.params[1], rng));
      return serialize_map(type.params[0], entries);
    }
    case TypeKind::kTuple:
    case TypeKind::kUdt: {
      std::vector<Value> parts;
      const size_t n = rng() % (type.params.size() + 1);
      for (size_t i = 0; i < n; ++i) {
        if (rng() % 4 == 0) {
          parts.emplace_back();
        } else {
          parts.emplace_back(random_value(type.params[i], rng));
        }
      }
      return serialize_tuple(parts);
    }
    default:
      return "";
  }
}

}  // namespace

TEST_CASE("value compare_values agrees with the byte-comparable encoding") {
  std::mt19937_64 rng(42);
  std::vector<CqlType> types;
  for (TypeKind k :
       {TypeKind::kAscii, TypeKind::kText, TypeKind::kBlob, TypeKind::kInet, TypeKind::kBoolean,
        TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt, TypeKind::kBigint,
        TypeKind::kTimestamp, TypeKind::kDate, TypeKind::kTime, TypeKind::kFloat, TypeKind::kDouble,
        TypeKind::kVarint, TypeKind::kDecimal, TypeKind::kUuid, TypeKind::kTimeuuid})
    types.push_back(t(k));
  types.push_back(CqlType::list(t(TypeKind::kInt), true));
  types.push_back(CqlType::set(t(TypeKind::kText), true));
  types.push_back(CqlType::map(t(TypeKind::kInt), t(TypeKind::kText), true));
  types.push_back(CqlType::tuple({t(TypeKind::kInt), t(TypeKind::kText), t(TypeKind::kDouble)}));
  for (const CqlType& type : types) {
    CAPTURE(cql_type_name(type));
    std::vector<std::string> values{""};
    for (int i = 0; i < 300; ++i) values.push_back(random_value(type, rng));
    std::vector<std::string> encoded;
    for (const auto& v : values) {
      std::string e;
      REQUIRE_MESSAGE(encode_key_component(type, v, false, &e).is_ok(), types::to_hex(v));
      encoded.push_back(std::move(e));
    }
    int disagreements = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = 0; j < values.size(); j += 7) {
        const int c = sign(compare_values(type, values[i], values[j]));
        const int m = sign(encoded[i].compare(encoded[j]));
        if (c != 0 && c != m) {
          ++disagreements;
          if (disagreements < 3)
            MESSAGE(types::to_hex(values[i]), " vs ", types::to_hex(values[j]), ": ", c, " ", m);
        }
      }
    }
    CHECK(disagreements == 0);
  }
}

TEST_CASE("value compare_values on numbers Cassandra calls equal") {
  const CqlType dec = t(TypeKind::kDecimal);
  CHECK(compare_values(dec, *parse_constant(dec, ConstantKind::kFloat, "1.0", "k"),
                       *parse_constant(dec, ConstantKind::kFloat, "1.00", "k")) == 0);
  CHECK(compare_values(dec, *parse_constant(dec, ConstantKind::kFloat, "-1.5", "k"),
                       *parse_constant(dec, ConstantKind::kFloat, "-1.25", "k")) < 0);
  const CqlType varint = t(TypeKind::kVarint);
  CHECK(compare_values(varint, std::string("\x00\x01", 2), std::string("\x01", 1)) == 0);
  CHECK(compare_values(varint, std::string("\xff\x7f", 2), std::string("\x80", 1)) < 0);
  CHECK(compare_values(t(TypeKind::kInt), "", std::string("\x80\0\0\0", 4)) < 0);
}
