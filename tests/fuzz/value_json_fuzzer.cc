// Fuzz target: collection and scalar JSON literals (fromJson(), INSERT JSON: from_json in
// engine/types/value_json.cc). The input is a CQL type (fuzz_support.h's byte form) followed by
// a JSON text.
//
// Beyond "no crash", it checks that a JSON text that converts gives a well-formed value of the
// type (validate_value; the empty value that "" gives for most types, as Cassandra's fromString
// does, is exempt), and that the value survives a round trip: to_json of it converts back to the
// same bytes. Two exceptions are Cassandra's own: a NaN or an infinity, which JSON writes as
// null (and which a collection then refuses back: a null element), and a value whose string
// form is empty (a zero duration), which "" brings back as the empty value. A text that does not
// convert fails with InvalidArgument.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/types/value.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::types;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const CqlType type = fuzz::read_type(in);
  const std::string_view json = in.take_rest();
  auto value = from_json(type, json, "v");
  if (!value.is_ok()) {
    FUZZ_CHECK(value.status().is_invalid_argument(), value.status().message());
    return 0;
  }
  if (!*value) return 0;  // null
  const Status valid = validate_value(type, **value);
  FUZZ_CHECK(valid.is_ok() || (*value)->empty(),
             "fromJson made an invalid " + cql_type_name(type) + ": " + valid.message());
  const std::string printed = to_json(type, *value);
  if (printed == "\"\"") return 0;
  auto again = from_json(type, printed, "v");
  // A NaN or an infinity inside a collection prints as null, which a collection refuses back
  // ("Invalid null element in set"), as in Cassandra.
  const bool non_finite_element = !again.is_ok() && printed.find("null") != std::string::npos &&
                                  again.status().message().find("null") != std::string::npos;
  if (non_finite_element) return 0;
  FUZZ_CHECK(again.is_ok(),
             "toJson's output does not convert back: " + printed + ": " + again.status().message());
  if (!*again) {
    FUZZ_CHECK(printed.find("null") != std::string::npos, "a value came back null: " + printed);
    return 0;
  }
  FUZZ_CHECK(**again == **value || printed.find("null") != std::string::npos,
             "a " + cql_type_name(type) + " value changed in a JSON round trip: " + printed);
  return 0;
}
