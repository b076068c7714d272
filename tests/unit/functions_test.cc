// The native scalar functions: resolution with Cassandra's messages, and their results.
#include "engine/cql/functions.h"

#include <doctest/doctest.h>

#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::cql;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

FunctionArgument typed(TypeKind k, std::string text) {
  return FunctionArgument{t(k), std::move(text)};
}
FunctionArgument literal(ConstantKind kind, std::string text) {
  return FunctionArgument{std::nullopt, std::move(text), kind};
}

std::string resolve_error(std::string_view name, std::vector<FunctionArgument> args,
                          std::optional<CqlType> receiver = std::nullopt) {
  auto f = resolve_function(name, args, receiver);
  REQUIRE_FALSE(f.is_ok());
  return f.status().message();
}

std::shared_ptr<const ScalarFunction> resolve(std::string_view name,
                                              std::vector<FunctionArgument> args,
                                              std::optional<CqlType> receiver = std::nullopt) {
  auto f = resolve_function(name, args, receiver);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  return *f;
}

Value call(const ScalarFunction& f, std::vector<Value> args, const FunctionContext& ctx = {}) {
  auto r = f.apply(args, ctx);
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  return *r;
}

}  // namespace

TEST_CASE("functions resolution messages") {
  CHECK(resolve_error("foo", {}) == "Unknown function 'foo'");
  CHECK(resolve_error("ks.now", {}) == "Unknown function 'ks.now'");
  CHECK(resolve_error("now", {typed(TypeKind::kInt, "k")}) ==
        "Invalid number of arguments in call to function system.now: 0 required but 1 provided");
  CHECK(resolve_error("min_timeuuid", {typed(TypeKind::kInt, "k")}) ==
        "Type error: k cannot be passed as argument 0 of function system.min_timeuuid of type "
        "timestamp");
  CHECK(resolve_error("dateof", {typed(TypeKind::kTimeuuid, "t")}) ==
        "Unknown function 'dateof'");  // removed in 5.0
  CHECK(resolve_error("totimestamp", {typed(TypeKind::kInt, "k")}) ==
        "Invalid call to function totimestamp, none of its type signatures match (known type "
        "signatures: "
        "system.totimestamp : (timeuuid) -> timestamp, system.totimestamp : (date) -> timestamp)");
  CHECK(resolve_error("totimestamp", {FunctionArgument{std::nullopt, "?"}}) ==
        "Ambiguous call to function totimestamp (can be matched by following signatures: "
        "system.totimestamp : (timeuuid) -> timestamp, system.totimestamp : (date) -> timestamp): "
        "use type "
        "casts to disambiguate");
  CHECK(resolve_error("tojson", {typed(TypeKind::kInt, "k")}) ==
        "toJson() may only be used within the selection clause of SELECT statements");
  CHECK(resolve_error("tojson", {literal(ConstantKind::kInteger, "1")}, t(TypeKind::kText)) ==
        "toJson() may only be used within the selection clause of SELECT statements");
  CHECK(resolve_error("tojson", {typed(TypeKind::kInt, "k"), typed(TypeKind::kInt, "v")}) ==
        "toJson() only accepts one argument (got 2)");
  CHECK(resolve_error("tojson", {literal(ConstantKind::kInteger, "1")}) ==
        "Cannot infer type for term 1 in selection clause (try using a cast to force a type)");
  // an operation in a term: untyped operands take the receiver's type
  CHECK(resolve("system._add",
                {literal(ConstantKind::kInteger, "1"), literal(ConstantKind::kInteger, "2")},
                t(TypeKind::kSmallint))
            ->return_type == t(TypeKind::kSmallint));
  CHECK(resolve("_multiply", {typed(TypeKind::kInt, "x"), literal(ConstantKind::kInteger, "2")},
                t(TypeKind::kBigint))
            ->return_type == t(TypeKind::kBigint));
  // an empty hex literal is a blob (a HEX constant of no digits)
  CHECK(resolve("blobasint", {FunctionArgument{std::nullopt, "0x"}})->return_type ==
        t(TypeKind::kInt));
  CHECK(resolve_error("fromjson", {typed(TypeKind::kText, "k")}) ==
        "fromJson() cannot be used in the selection clause of a SELECT statement");
  CHECK(resolve("system.now", {})->name == "system.now");
  CHECK(resolve("totimestamp", {typed(TypeKind::kDate, "d")})->parameter_types[0] ==
        t(TypeKind::kDate));
  CHECK(
      resolve("totimestamp", {literal(ConstantKind::kString, "2024-01-02")})->parameter_types[0] ==
      t(TypeKind::kDate));
  CHECK(resolve("todate", {literal(ConstantKind::kInteger, "0")})->parameter_types[0] ==
        t(TypeKind::kTimestamp));
  // TypeTest.testDateCompatibility: the return type only needs to be readable as the receiver's
  CHECK(resolve("totimestamp", {typed(TypeKind::kTimeuuid, "now()")}, t(TypeKind::kVarint))
            ->return_type == t(TypeKind::kTimestamp));
  CHECK(resolve("tounixtimestamp", {typed(TypeKind::kTimeuuid, "now()")}, t(TypeKind::kTimestamp))
            ->return_type == t(TypeKind::kBigint));
  CHECK(resolve("blobasint", {typed(TypeKind::kInt, "k")})->name ==
        "system.blobasint");  // blob reads anything
  // Literals given without their kind: read from their text ('quoted' is a STRING, ...)
  CHECK(resolve("totimestamp", {FunctionArgument{std::nullopt, "'2024-01-02'"}})
            ->parameter_types[0] == t(TypeKind::kDate));
  CHECK(resolve("todate", {FunctionArgument{std::nullopt, "1234"}})->parameter_types[0] ==
        t(TypeKind::kTimestamp));
  CHECK(resolve("totimestamp",
                {FunctionArgument{std::nullopt, "6bddc89a-5644-11e4-97fc-56847afe9799"}})
            ->parameter_types[0] == t(TypeKind::kTimeuuid));
  CHECK(resolve("floor", {typed(TypeKind::kTimestamp, "t"), FunctionArgument{std::nullopt, "1h"}})
            ->parameter_types.size() == 2);
  CHECK(resolve_error("blobasint", {FunctionArgument{std::nullopt, "'x'"}}) ==
        "Type error: 'x' cannot be passed as argument 0 of function system.blobasint of type blob");
  CHECK(resolve_error("mintimeuuid", {FunctionArgument{std::nullopt, "[1, 2]"}}) ==
        "Type error: [1, 2] cannot be passed as argument 0 of function system.mintimeuuid of type "
        "timestamp");
  CHECK(resolve("blobasint", {FunctionArgument{std::nullopt, "null"}})->name == "system.blobasint");
  CHECK(is_native_function("blobasint"));
  CHECK(is_native_function("system.tojson"));
  CHECK_FALSE(is_native_function("nope"));
}

TEST_CASE("functions time conversions") {
  const std::string uuid =
      *parse_value_string(t(TypeKind::kTimeuuid), "6bddc89a-5644-11e4-97fc-56847afe9799");
  auto to_ts = resolve("totimestamp", {typed(TypeKind::kTimeuuid, "u")});
  CHECK(format_value(t(TypeKind::kTimestamp), *call(*to_ts, {uuid}), ValueStyle::kString) ==
        "2014-10-17T21:27:39.541Z");
  auto to_unix = resolve("tounixtimestamp", {typed(TypeKind::kTimeuuid, "u")});
  CHECK(format_value(t(TypeKind::kBigint), *call(*to_unix, {uuid}), ValueStyle::kString) ==
        "1413581259541");
  auto to_date = resolve("todate", {typed(TypeKind::kTimeuuid, "u")});
  CHECK(format_value(t(TypeKind::kDate), *call(*to_date, {uuid}), ValueStyle::kString) ==
        "2014-10-17");
  auto min = resolve("mintimeuuid", {literal(ConstantKind::kString, "2014-10-17 21:27:39.541Z")});
  const Value low =
      call(*min, {*parse_value_string(t(TypeKind::kTimestamp), "2014-10-17 21:27:39.541Z")});
  auto max = resolve("maxtimeuuid", {typed(TypeKind::kTimestamp, "t")});
  const Value high =
      call(*max, {*parse_value_string(t(TypeKind::kTimestamp), "2014-10-17 21:27:39.541Z")});
  CHECK(compare_values(t(TypeKind::kTimeuuid), *low, uuid) < 0);
  CHECK(compare_values(t(TypeKind::kTimeuuid), uuid, *high) < 0);
  CHECK(compare_values(t(TypeKind::kTimeuuid), *high,
                       max_timeuuid(1413581259542) /* the next millisecond */) < 0);

  FunctionContext ctx;
  ctx.now_micros = 1704164645000123;
  auto now = resolve("now", {});
  const Value a = call(*now, {}, ctx), b = call(*now, {}, ctx);
  CHECK(*a != *b);
  // The statement's time, or past the latest timeuuid the process made (other tests' now()).
  CHECK(timeuuid_micros(*a) >= 1704164645000123);
  CHECK(timeuuid_micros(*b) > timeuuid_micros(*a));
  CHECK(validate_value(t(TypeKind::kTimeuuid), *a).is_ok());
  CHECK(format_value(t(TypeKind::kTimestamp), *call(*resolve("currenttimestamp", {}), {}, ctx),
                     ValueStyle::kString) == "2024-01-02T03:04:05.000Z");
  CHECK(format_value(t(TypeKind::kDate), *call(*resolve("currentdate", {}), {}, ctx),
                     ValueStyle::kString) == "2024-01-02");
  CHECK(format_value(t(TypeKind::kTime), *call(*resolve("currenttime", {}), {}, ctx),
                     ValueStyle::kString) == "03:04:05.000123000");
  const Value u = call(*resolve("uuid", {}), {});
  CHECK(internal::uuid_version(*u) == 4);
}

TEST_CASE("functions blob conversions") {
  auto int_as_blob = resolve("intasblob", {typed(TypeKind::kInt, "i")});
  CHECK(int_as_blob->name == "system.intasblob");
  CHECK(int_as_blob->return_type == t(TypeKind::kBlob));
  CHECK(*call(*int_as_blob, {std::string("\0\0\0\1", 4)}) == std::string("\0\0\0\1", 4));
  auto blob_as_int = resolve("blobasint", {literal(ConstantKind::kHex, "0x00000001")});
  CHECK(*call(*blob_as_int, {std::string("\0\0\0\1", 4)}) == std::string("\0\0\0\1", 4));
  auto r = blob_as_int->apply(std::vector<Value>{std::string("\1", 1)}, FunctionContext{});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() ==
        "In call to function system.blobasint, value 0x01 is not a valid binary representation for "
        "type int");
  CHECK(resolve("varcharasblob", {typed(TypeKind::kText, "s")})->name == "system.varcharasblob");
  CHECK(resolve("blobastext", {typed(TypeKind::kBlob, "b")})->return_type == t(TypeKind::kText));
  CHECK(resolve_error("blobasint", {literal(ConstantKind::kInteger, "1")}) ==
        "Type error: 1 cannot be passed as argument 0 of function system.blobasint of type blob");
}

TEST_CASE("functions fromJson") {
  auto f = resolve("fromjson", {literal(ConstantKind::kString, "'1'")}, t(TypeKind::kInt));
  CHECK(f->name == "system.fromjson");
  CHECK(*call(*f, {std::string("7")}) == std::string("\0\0\0\7", 4));
  CHECK_FALSE(call(*f, {std::string("null")}).has_value());
  auto r = f->apply(std::vector<Value>{std::string("\"xyz\"")}, FunctionContext{});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() ==
        "execution of 'system.fromjson[text]' failed: "
        "org.apache.cassandra.serializers.MarshalException: Unable to "
        "make int from 'xyz'");
}

TEST_CASE("functions floor for GROUP BY time buckets") {
  const CqlType ts = t(TypeKind::kTimestamp), dur = t(TypeKind::kDuration),
                date = t(TypeKind::kDate), time = t(TypeKind::kTime);
  auto v = [](const CqlType& type, std::string_view text) {
    return Value(*parse_value_string(type, text));
  };
  auto floor_ts =
      resolve("floor", {typed(TypeKind::kTimestamp, "t"), literal(ConstantKind::kDuration, "5m")});
  CHECK(floor_ts->return_type == ts);
  auto at = [&](const ScalarFunction& f, std::vector<Value> args, const CqlType& type) {
    return format_value(type, *call(f, std::move(args)), ValueStyle::kString);
  };
  CHECK(at(*floor_ts, {v(ts, "2016-09-27 16:12:34"), v(dur, "5m")}, ts) ==
        "2016-09-27T16:10:00.000Z");
  CHECK(at(*floor_ts, {v(ts, "2016-09-27 16:10:00"), v(dur, "5m")}, ts) ==
        "2016-09-27T16:10:00.000Z");
  CHECK(at(*floor_ts, {v(ts, "2016-09-27 16:12:34"), v(dur, "2mo")}, ts) ==
        "2016-09-01T00:00:00.000Z");
  auto floor_ts_start =
      resolve("floor", {typed(TypeKind::kTimestamp, "t"), literal(ConstantKind::kDuration, "2h"),
                        literal(ConstantKind::kString, "2016-09-27 01:00")});
  CHECK(at(*floor_ts_start, {v(ts, "2016-09-27 16:12:34"), v(dur, "2h"), v(ts, "2016-09-27 01:00")},
           ts) == "2016-09-27T15:00:00.000Z");
  auto r = floor_ts_start->apply(
      std::vector<Value>{v(ts, "2016-09-27 00:00"), v(dur, "2h"), v(ts, "2016-09-28")},
      FunctionContext{});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() ==
        "The floor function starting time is greater than the provided time");
  r = floor_ts->apply(std::vector<Value>{v(ts, "2016-09-27 00:00"), v(dur, "1us")},
                      FunctionContext{});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() ==
        "The floor cannot be computed for the 1us duration as precision is below 1 millisecond");

  auto floor_date =
      resolve("floor", {typed(TypeKind::kDate, "d"), literal(ConstantKind::kDuration, "1w")});
  CHECK(floor_date->return_type == date);
  CHECK(at(*floor_date, {v(date, "2016-09-27"), v(dur, "1w")}, date) == "2016-09-22");
  r = floor_date->apply(std::vector<Value>{v(date, "2016-09-27"), v(dur, "1h")}, FunctionContext{});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() ==
        "The floor on date values cannot be computed for the 1h duration as precision is below 1 "
        "day");

  auto floor_time =
      resolve("floor", {typed(TypeKind::kTime, "t"), literal(ConstantKind::kDuration, "1m")});
  CHECK(at(*floor_time, {v(time, "10:12:34.5"), v(dur, "1m")}, time) == "10:12:00.000000000");
  auto floor_uuid =
      resolve("floor", {typed(TypeKind::kTimeuuid, "u"), literal(ConstantKind::kDuration, "1d")});
  CHECK(floor_uuid->return_type == ts);
  CHECK(at(*floor_uuid,
           {v(t(TypeKind::kTimeuuid), "6bddc89a-5644-11e4-97fc-56847afe9799"), v(dur, "1d")},
           ts) == "2014-10-17T00:00:00.000Z");
}

TEST_CASE("functions math (Cassandra 5.0)") {
  auto v = [](TypeKind k, std::string_view text) { return Value(*parse_value_string(t(k), text)); };
  auto show = [](TypeKind k, const Value& value) {
    return format_value(t(k), *value, ValueStyle::kString);
  };
  // A literal is an exact match for its preferred type: abs(1) is the int overload
  auto abs_int = resolve("abs", {literal(ConstantKind::kInteger, "-1")});
  CHECK(abs_int->return_type == t(TypeKind::kInt));
  CHECK(resolve("abs", {literal(ConstantKind::kInteger, "12345678901")})->return_type ==
        t(TypeKind::kBigint));
  CHECK(resolve("abs", {literal(ConstantKind::kFloat, "1.5")})->return_type ==
        t(TypeKind::kDouble));
  CHECK(resolve("abs", {literal(ConstantKind::kFloat, "1.00000000000000000001")})->return_type ==
        t(TypeKind::kDecimal));
  CHECK(show(TypeKind::kInt, call(*abs_int, {v(TypeKind::kInt, "-7")})) == "7");
  CHECK(show(TypeKind::kInt, call(*abs_int, {v(TypeKind::kInt, "-2147483648")})) == "-2147483648");
  auto round_double = resolve("round", {typed(TypeKind::kDouble, "d")});
  CHECK(show(TypeKind::kDouble, call(*round_double, {v(TypeKind::kDouble, "2.5")})) == "3.0");
  CHECK(show(TypeKind::kDouble, call(*round_double, {v(TypeKind::kDouble, "-2.5")})) == "-2.0");
  auto round_decimal = resolve("round", {typed(TypeKind::kDecimal, "d")});
  CHECK(show(TypeKind::kDecimal, call(*round_decimal, {v(TypeKind::kDecimal, "2.5")})) == "3");
  CHECK(show(TypeKind::kDecimal, call(*round_decimal, {v(TypeKind::kDecimal, "-2.5")})) == "-3");
  CHECK(show(TypeKind::kDecimal, call(*round_decimal, {v(TypeKind::kDecimal, "9.49")})) == "9");
  CHECK(show(TypeKind::kDecimal, call(*round_decimal, {v(TypeKind::kDecimal, "0.04")})) == "0");
  auto abs_decimal = resolve("abs", {typed(TypeKind::kDecimal, "d")});
  CHECK(show(TypeKind::kDecimal, call(*abs_decimal, {v(TypeKind::kDecimal, "-1.50")})) == "1.50");
  auto exp_int = resolve("exp", {typed(TypeKind::kInt, "i")});
  CHECK(show(TypeKind::kInt, call(*exp_int, {v(TypeKind::kInt, "2")})) == "7");
  auto log_double = resolve("log", {typed(TypeKind::kDouble, "d")});
  CHECK(show(TypeKind::kDouble, call(*log_double, {v(TypeKind::kDouble, "1")})) == "0.0");
  auto log10_float = resolve("log10", {typed(TypeKind::kFloat, "f")});
  CHECK(show(TypeKind::kFloat, call(*log10_float, {v(TypeKind::kFloat, "1000")})) == "3.0");
  CHECK(resolve_error("abs", {literal(ConstantKind::kString, "a")}) ==
        "Invalid call to function abs, none of its type signatures match (known type signatures: "
        "system.abs : (tinyint) -> tinyint, system.abs : (smallint) -> smallint, system.abs : "
        "(int) -> int, system.abs : (float) -> float, system.abs : (bigint) -> bigint, system.abs "
        ": (double) -> double, system.abs : (varint) -> varint, system.abs : (decimal) -> decimal, "
        "system.abs : (counter) -> counter)");
}

TEST_CASE("functions on collections (Cassandra 5.0)") {
  const CqlType i = t(TypeKind::kInt), text = t(TypeKind::kText);
  const CqlType map = CqlType::map(text, i);
  auto int_bytes = [](int32_t x) { return types::store_be(static_cast<uint32_t>(x), 4); };
  const std::string m = serialize_map(text, {{"b", int_bytes(2)}, {"a", int_bytes(5)}});
  auto keys = resolve("map_keys", {FunctionArgument{map, "m"}});
  CHECK(keys->return_type == CqlType::set(text));
  CHECK(format_value(keys->return_type, *call(*keys, {m}), ValueStyle::kCqlsh) == "{'a', 'b'}");
  auto values = resolve("map_values", {FunctionArgument{map, "m"}});
  CHECK(format_value(values->return_type, *call(*values, {m}), ValueStyle::kCqlsh) == "[5, 2]");
  auto count = resolve("collection_count", {FunctionArgument{map, "m"}});
  CHECK(format_value(i, *call(*count, {m}), ValueStyle::kCqlsh) == "2");
  const CqlType list = CqlType::list(i);
  const std::string l =
      serialize_list(std::vector<std::string>{int_bytes(3), int_bytes(-4), int_bytes(8)});
  auto show = [&](std::string_view fn, const std::string& value) {
    auto f = resolve(fn, {FunctionArgument{list, "l"}});
    return format_value(f->return_type, *call(*f, {value}), ValueStyle::kCqlsh);
  };
  CHECK(show("collection_min", l) == "-4");
  CHECK(show("collection_max", l) == "8");
  CHECK(show("collection_sum", l) == "7");
  CHECK(show("collection_avg", l) == "2");
  CHECK(show("collection_sum", serialize_list(std::vector<std::string>{})) == "0");
  CHECK(resolve_error("map_keys", {FunctionArgument{list, "l"}}) ==
        "Function system.map_keys requires a map argument, but found argument l of type list<int>");
  CHECK(resolve_error("collection_sum", {FunctionArgument{CqlType::list(text), "l"}}) ==
        "Function system.collection_sum requires a numeric set/list argument, but found argument l "
        "of type list<text>");
  CHECK(resolve_error("map_keys", {}) ==
        "Invalid number of arguments for function system.map_keys(map)");
}
