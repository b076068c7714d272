// engine/query/access_path.h: the key and range arithmetic that the SQL cursor, CQL SELECT and
// DELETE's range tombstones share, with each caller's options (key order, bad keys, merging,
// explicit ends, mixed-order slices).
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/query/access_path.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/murmur3.h"
#include "engine/types/scalar.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

namespace {

using query::BadKey;
using query::ClusteringRange;
using query::KeyOrder;
using query::SliceBound;
using query::SliceBounds;

std::string int32(int32_t v) {
  return types::store_be(static_cast<uint32_t>(v), 4);
}

struct Fixture : CqlFixture {
  std::shared_ptr<const schema::TableDef> single, composite;

  Fixture() {
    ok("CREATE TABLE ks.single (k int, c int, d int, v int, PRIMARY KEY (k, c, d)) "
       "WITH CLUSTERING ORDER BY (c ASC, d DESC)");
    ok("CREATE TABLE ks.composite (a int, b text, c int, PRIMARY KEY ((a, b), c)) "
       "WITH CLUSTERING ORDER BY (c DESC)");
    auto schema = session().catalog().current().value();
    single = schema->find_table("ks", "single");
    composite = schema->find_table("ks", "composite");
  }
  std::string clustering(const schema::TableDef& table, std::vector<std::string> values) const {
    auto bytes = cql::clustering_key_bytes(table, values);
    REQUIRE(bytes.is_ok());
    return std::move(bytes).value();
  }
};

std::vector<int64_t> ints_of(const std::vector<query::PartitionKey>& keys) {
  std::vector<int64_t> out;
  for (const query::PartitionKey& k : keys) out.push_back(as_int(k.key));
  return out;
}

}  // namespace

TEST_CASE("access path: IN partitions in key-value order (CQL) or token order (SQL), deduped") {
  Fixture f;
  std::vector<std::string> ks = {int32(3), int32(1), int32(2), int32(1),
                                 int32(6), int32(5), int32(4)};
  const std::vector<std::string>* lists[] = {&ks};

  auto by_value = query::partition_keys(*f.single, lists, KeyOrder::kKeyValue, BadKey::kError);
  REQUIRE(by_value.is_ok());
  CHECK(ints_of(*by_value) == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  for (const query::PartitionKey& k : *by_value) CHECK(k.token == types::murmur3_token(k.key));

  auto by_token = query::partition_keys(*f.single, lists, KeyOrder::kToken, BadKey::kSkip);
  REQUIRE(by_token.is_ok());
  std::vector<std::pair<int64_t, int64_t>> expected;  // (token, key) in token order
  for (int v : {1, 2, 3, 4, 5, 6}) expected.emplace_back(types::murmur3_token(int32(v)), v);
  std::sort(expected.begin(), expected.end());
  std::vector<int64_t> expected_keys;
  for (const auto& [token, key] : expected) expected_keys.push_back(key);
  CHECK(ints_of(*by_token) == expected_keys);
  CHECK(expected_keys != std::vector<int64_t>{1, 2, 3, 4, 5, 6});  // the two orders do differ here

  // A token range keeps only the keys inside it (CQL: token restriction and full key).
  storage::TokenRange within;
  within.start = expected[1].first;
  within.start_inclusive = true;
  auto filtered =
      query::partition_keys(*f.single, lists, KeyOrder::kKeyValue, BadKey::kError, &within);
  REQUIRE(filtered.is_ok());
  std::vector<int64_t> kept;
  for (size_t i = 1; i < expected.size(); ++i) kept.push_back(expected[i].second);
  std::sort(kept.begin(), kept.end());
  CHECK(ints_of(*filtered) == kept);
}

TEST_CASE("access path: keys that cannot exist are CQL's errors and SQL's skips") {
  Fixture f;
  std::vector<std::string> empty = {std::string()};
  const std::vector<std::string>* one[] = {&empty};
  auto error = query::partition_keys(*f.single, one, KeyOrder::kKeyValue, BadKey::kError);
  REQUIRE_FALSE(error.is_ok());
  CHECK(error.status().message() == "Key may not be empty");
  auto skipped = query::partition_keys(*f.single, one, KeyOrder::kToken, BadKey::kSkip);
  REQUIRE(skipped.is_ok());
  CHECK(skipped->size() == 1);  // an empty single key is read (and finds nothing)

  std::vector<std::string> a = {int32(1)}, b = {"short", std::string(70000, 'x')};
  const std::vector<std::string>* two[] = {&a, &b};
  auto too_long = query::partition_keys(*f.composite, two, KeyOrder::kKeyValue, BadKey::kError);
  REQUIRE_FALSE(too_long.is_ok());
  CHECK(too_long.status().message() == "Key length of 70010 is longer than maximum of 65535");
  auto fits = query::partition_keys(*f.composite, two, KeyOrder::kToken, BadKey::kSkip);
  REQUIRE(fits.is_ok());
  REQUIRE(fits->size() == 1);
  CHECK(fits->front().key == cql::partition_key_bytes(std::vector<std::string>{int32(1), "short"}));
}

TEST_CASE("access path: clustering prefixes, slices, the DESC flip and merging") {
  Fixture f;
  const schema::TableDef& t = *f.single;  // c ASC, d DESC

  // c IN (2, 1, 2): one range per distinct prefix, sorted.
  std::vector<std::string> cs = {int32(2), int32(1), int32(2)};
  const std::vector<std::string>* lists[] = {&cs};
  auto prefixes = query::clustering_prefixes(lists);
  CHECK(prefixes.size() == 3);
  auto ranges = query::clustering_ranges(t, prefixes, nullptr);
  REQUIRE(ranges.is_ok());
  std::string c1 = f.clustering(t, {int32(1)}), c2 = f.clustering(t, {int32(2)});
  CHECK(*ranges == std::vector<ClusteringRange>{{c1, types::prefix_end_bound(c1)},
                                                {c2, types::prefix_end_bound(c2)}});
  // DELETE: as given, not merged.
  auto unmerged = query::clustering_ranges(t, prefixes, nullptr, {.merge = false});
  REQUIRE(unmerged.is_ok());
  CHECK(unmerged->size() == 3);
  CHECK(unmerged->front().first == c2);

  // No prefix: the whole partition, open for reads, an explicit end for a range tombstone.
  std::vector<std::vector<std::string>> none = {{}};
  CHECK(*query::clustering_ranges(t, none, nullptr) == std::vector<ClusteringRange>{{"", ""}});
  CHECK(*query::clustering_ranges(t, none, nullptr, {.explicit_end = true}) ==
        std::vector<ClusteringRange>{{"", types::prefix_end_bound("")}});

  // c = 1 AND d > 5 AND d <= 9 on the DESC column d: value bounds swap ends in byte order.
  SliceBounds slice;
  slice.descending = true;
  slice.lower = SliceBound{{int32(5)}, false};
  slice.upper = SliceBound{{int32(9)}, true};
  std::vector<std::vector<std::string>> c_is_1 = {{int32(1)}};
  auto desc = query::clustering_ranges(t, c_is_1, &slice);
  REQUIRE(desc.is_ok());
  std::string d9 = f.clustering(t, {int32(1), int32(9)});
  std::string d5 = f.clustering(t, {int32(1), int32(5)});
  CHECK(*desc == std::vector<ClusteringRange>{{d9, d5}});
  // An empty slice reads nothing.
  slice.lower = SliceBound{{int32(9)}, false};
  CHECK(query::clustering_ranges(t, c_is_1, &slice)->empty());

  // (c, d) > (1, 5) over mixed orders: only c bounds the read, inclusively.
  SliceBounds mixed;
  mixed.lower = SliceBound{{int32(1), int32(5)}, false};
  mixed.only_first_column = true;
  auto first_only = query::clustering_ranges(t, none, &mixed);
  REQUIRE(first_only.is_ok());
  CHECK(*first_only == std::vector<ClusteringRange>{{c1, ""}});
  mixed.only_first_column = false;  // uniform order: the whole tuple, exclusive
  auto whole = query::clustering_ranges(t, none, &mixed);
  REQUIRE(whole.is_ok());
  CHECK(*whole == std::vector<ClusteringRange>{{types::prefix_end_bound(d5), ""}});

  // Overlapping ranges merge: c IN (1) with an open slice after it and c >= 1 cover each other.
  std::vector<std::vector<std::string>> both = {{int32(1)}, {}};
  auto merged = query::clustering_ranges(t, both, nullptr);
  REQUIRE(merged.is_ok());
  CHECK(*merged == std::vector<ClusteringRange>{{"", ""}});
}

}  // namespace cassette::test
