// RowCursor's merge of several sources, driven through hand-made sources so that the layouts
// are exact: long runs of keys from one source (the lone-source shortcut that compares the
// moving source with the remembered runner-up only), runs that hand over between sources, the
// same key in two sources (reconciled), keys of different partitions with the same token (their
// order is decided past the first eight bytes), exhausted sources, both directions and
// skip_partition(). Every read is checked against the exact rows expected, and partition_number()
// against the partitions seen.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <utility>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

// A sorted vector of (entry key, entry value) as an EntryIterator.
class VectorSource final : public EntryIterator {
 public:
  explicit VectorSource(std::vector<std::pair<std::string, std::string>> entries)
      : entries_(std::move(entries)), at_(entries_.size()) {}
  bool valid() const override { return at_ < entries_.size(); }
  void seek(std::string_view key) override {
    at_ = 0;
    while (at_ < entries_.size() && entries_[at_].first < key) ++at_;
  }
  void seek_for_prev(std::string_view key) override {
    at_ = entries_.size();
    for (size_t i = 0; i < entries_.size() && entries_[i].first <= key; ++i) at_ = i;
  }
  void seek_to_last() override { at_ = entries_.empty() ? 0 : entries_.size() - 1; }
  void next() override { ++at_; }
  void prev() override { at_ = at_ == 0 ? entries_.size() : at_ - 1; }
  std::string_view key() const override { return entries_[at_].first; }
  std::string_view value() const override { return entries_[at_].second; }
  Status status() const override { return Status::ok(); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
  size_t at_;
};

// Rows "pk|clustering|value" are held by sources; `ts` orders versions of one key.
struct Put {
  int64_t token;
  std::string pk;
  int64_t clustering;
  std::string value;
  int64_t ts = 1;
};

std::unique_ptr<EntryIterator> source(const std::vector<Put>& puts) {
  std::map<std::string, std::string> sorted;
  for (const Put& p : puts) {
    std::string value;
    encode_row(insert_row(p.value, p.ts), &value);
    sorted[entry_key(partition_prefix(p.token, p.pk), EntryKind::kRow, ck(p.clustering))] = value;
  }
  return std::make_unique<VectorSource>(
      std::vector<std::pair<std::string, std::string>>(sorted.begin(), sorted.end()));
}

std::vector<std::string> read(const std::vector<std::vector<Put>>& layout, bool reverse,
                              size_t per_partition = SIZE_MAX) {
  std::vector<std::unique_ptr<EntryIterator>> sources;
  for (const auto& puts : layout) sources.push_back(source(puts));
  ReadSpec spec;
  spec.reverse = reverse;
  RowCursor cursor(spec, std::move(sources), {}, 1'700'000'000);
  std::vector<std::string> out;
  std::string partition;
  size_t in_partition = 0;
  uint64_t partitions = 0;
  while (cursor.next()) {
    if (cursor.partition_key() != partition) {
      partition = cursor.partition_key();
      in_partition = 0;
      ++partitions;
    }
    CHECK(cursor.partition_number() == partitions);  // one number per partition entered
    out.push_back(cursor.partition_key() + "|" + std::to_string(ck_value(cursor.clustering())) +
                  "|" + cell_value(cursor.row()));
    if (++in_partition == per_partition) cursor.skip_partition();
  }
  REQUIRE(cursor.status().is_ok());
  return out;
}

std::vector<std::string> reversed(std::vector<std::string> rows) {
  std::reverse(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TEST_CASE("row cursor merge: runs from one source hand over to the next in key order") {
  // Partition a (token 10) lives in source 0, b (token 20) in source 1, c (token 30) in source 0
  // again, d (token 40) in source 2: each run is read with the lone-source shortcut and each
  // handover needs the full comparison.
  std::vector<std::vector<Put>> layout = {
      {{10, "a", 1, "a1"},
       {10, "a", 2, "a2"},
       {10, "a", 3, "a3"},
       {30, "c", 1, "c1"},
       {30, "c", 2, "c2"}},
      {{20, "b", 1, "b1"}, {20, "b", 2, "b2"}},
      {{40, "d", 1, "d1"}, {40, "d", 2, "d2"}, {40, "d", 3, "d3"}},
  };
  std::vector<std::string> forward = {"a|1|a1", "a|2|a2", "a|3|a3", "b|1|b1", "b|2|b2",
                                      "c|1|c1", "c|2|c2", "d|1|d1", "d|2|d2", "d|3|d3"};
  CHECK(read(layout, false) == forward);
  CHECK(read(layout, true) == reversed(forward));
  // skip_partition() moves every source: the shortcut must not survive it.
  CHECK(read(layout, false, 1) == std::vector<std::string>{"a|1|a1", "b|1|b1", "c|1|c1", "d|1|d1"});
  CHECK(read(layout, true, 1) == std::vector<std::string>{"d|3|d3", "c|2|c2", "b|2|b2", "a|3|a3"});
}

TEST_CASE("row cursor merge: a key in two sources is reconciled, then the run goes on") {
  // Row a|2 is in both sources (the newer version wins); the lone source's next key equals the
  // runner-up's, which must make the group of two.
  std::vector<std::vector<Put>> layout = {
      {{10, "a", 1, "old1", 1}, {10, "a", 2, "old2", 1}, {10, "a", 3, "new3", 5}},
      {{10, "a", 2, "new2", 5}, {10, "a", 3, "old3", 1}, {10, "a", 4, "new4", 5}},
  };
  std::vector<std::string> forward = {"a|1|old1", "a|2|new2", "a|3|new3", "a|4|new4"};
  CHECK(read(layout, false) == forward);
  CHECK(read(layout, true) == reversed(forward));
}

TEST_CASE("row cursor merge: partitions with one token are ordered by their key bytes") {
  // Equal first eight bytes (the token): the order falls to the partition key bytes.
  std::vector<std::vector<Put>> layout = {
      {{7, "m", 1, "m1"}, {7, "m", 2, "m2"}, {7, "z", 1, "z1"}},
      {{7, "k", 1, "k1"}, {7, "p", 1, "p1"}, {7, "p", 2, "p2"}},
      {{-5, "x", 1, "x1"}, {9, "y", 1, "y1"}},
  };
  std::vector<std::string> forward = {"x|1|x1", "k|1|k1", "m|1|m1", "m|2|m2",
                                      "p|1|p1", "p|2|p2", "z|1|z1", "y|1|y1"};
  CHECK(read(layout, false) == forward);
  CHECK(read(layout, true) == reversed(forward));
}

TEST_CASE("row cursor merge: sources that run out, and empty ones") {
  std::vector<std::vector<Put>> layout = {
      {},
      {{1, "a", 1, "a1"}},
      {{2, "b", 1, "b1"}, {2, "b", 2, "b2"}, {3, "c", 1, "c1"}, {3, "c", 2, "c2"}},
      {},
  };
  std::vector<std::string> forward = {"a|1|a1", "b|1|b1", "b|2|b2", "c|1|c1", "c|2|c2"};
  CHECK(read(layout, false) == forward);
  CHECK(read(layout, true) == reversed(forward));
  CHECK(read({{}, {}}, false).empty());
  CHECK(read({{{4, "only", 1, "o1"}, {4, "only", 2, "o2"}}}, true) ==
        std::vector<std::string>{"only|2|o2", "only|1|o1"});
}
