// Helpers for the parser tests: parse a statement and get the alternative, or its error.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <variant>

#include "engine/cql/parser.h"

namespace cassette::cql::test {

// The statement's alternative T; fails the test (and returns a default T) otherwise.
template <typename T>
T parse_as(std::string_view text) {
  auto r = parse_statement(text);
  INFO(text);
  INFO(r.status().message());
  REQUIRE(r.is_ok());
  REQUIRE(std::holds_alternative<T>(*r));
  return std::get<T>(*r);
}

inline bool parse_ok(std::string_view text) {
  auto r = parse_statement(text);
  if (!r.is_ok()) MESSAGE(fmt::format("{} -> {}", text, r.status().message()));
  return r.is_ok();
}

// The syntax error's message ("" if the statement parsed or the error is not a syntax error).
inline std::string parse_error(std::string_view text) {
  auto r = parse_statement(text);
  if (r.is_ok() || r.status().code() != StatusCode::kSyntaxError) return "";
  return r.status().message();
}

}  // namespace cassette::cql::test

using cassette::cql::test::parse_as;
using cassette::cql::test::parse_error;
using cassette::cql::test::parse_ok;
