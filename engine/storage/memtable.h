// The memtable: every write since the last flush, sorted, in memory. One per store (all tables),
// keyed by table id, entry key and a sequence number.
//
// Each write transaction gets one sequence number; a reader's snapshot sees the entries whose
// sequence number is at most its own, so a transaction becomes visible all at once. Several
// entries (fragments) may share a key: readers reconcile them (and the SSTables' versions).
//
// Thread-safety: add() REQUIRES external synchronization (the store's write mutex); iterators
// may run concurrently with add() and with each other, without locks (a skiplist in the style
// of LevelDB's, whose nodes are published with release stores).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/arena.h"
#include "engine/storage/ids.h"

namespace cassette::storage {

class Memtable {
 private:
  struct Node;
  struct SearchKey;

 public:
  Memtable();
  ~Memtable();
  Memtable(const Memtable&) = delete;
  Memtable& operator=(const Memtable&) = delete;

  void add(SequenceNumber seq, TableId table, std::string_view key, std::string_view value);

  struct BatchEntry {
    TableId table;
    std::string_view key;
    std::string_view value;
  };
  // add() for every entry, under one sequence number. Entries are grouped by partition first
  // (by table id and token, keeping their order: group_batch) and each is searched for from
  // where the previous one went: after it (a finger) or in the same gap before it (rows
  // arriving in reverse order), so a large transaction costs a couple of comparisons on
  // cache-hot nodes per entry instead of a search from the top of the skiplist that misses the
  // cache at every level.
  void add_batch(SequenceNumber seq, const std::vector<BatchEntry>& entries);
  // add_batch's grouping step (public for its tests): orders `items` by (table, w1), keeping
  // their order among equal ones (`entry` pointers increase in batch order).
  struct BatchItem {
    uint64_t table;
    uint64_t w1;  // the key's first 8 bytes, big-endian, zero padded
    const BatchEntry* entry;
  };
  static void group_batch(std::vector<BatchItem>& items);
  size_t memory_usage() const { return arena_.memory_usage(); }
  bool empty() const { return entries_.load(std::memory_order_acquire) == 0; }
  uint64_t entry_count() const { return entries_.load(std::memory_order_acquire); }
  // Entries added for `table` (an estimate for query planning: tables whose ids share a bucket
  // are counted together).
  uint64_t table_entry_count(TableId table) const {
    return table_entries_[table % kTableBuckets].load(std::memory_order_relaxed);
  }
  // Smallest write timestamp of anything added (purge decisions), tracked by the store.
  std::atomic<int64_t> min_timestamp{INT64_MAX};
  // Whether any partition header or static row was added: reads skip looking them up otherwise.
  std::atomic<bool> has_partition_metadata{false};

  // Iterates one table's entries visible at `snapshot`, in key order; entries with equal keys
  // come newest first. Keys are returned without the table prefix.
  class Iterator {
   public:
    Iterator(const Memtable* mem, TableId table, SequenceNumber snapshot);
    bool valid() const;
    void seek(std::string_view key);           // first entry with key >= `key`
    void seek_for_prev(std::string_view key);  // last entry with key <= `key`
    void seek_to_first();
    void seek_to_last();
    void next();
    void prev();
    std::string_view key() const;    // REQUIRES: valid()
    std::string_view value() const;  // REQUIRES: valid()

   private:
    void skip_invisible_forward();
    void skip_invisible_backward();
    void step_back();
    bool in_table() const;
    const Memtable* mem_;
    TableId table_;
    SequenceNumber snapshot_;
    const Node* node_ = nullptr;
    // The nodes just before node_, in key order, for prev(): a skiplist has no back links, so
    // one search finds a node some way back and a forward walk fills this (LevelDB searches
    // again for every step, which makes a reverse read O(log n) per entry).
    std::vector<const Node*> before_;
  };

  // Iterates every entry of every table (for flushing): table, key, seq, value.
  class RawIterator {
   public:
    explicit RawIterator(const Memtable* mem);
    bool valid() const { return node_ != nullptr; }
    void next();
    TableId table() const;
    std::string_view key() const;
    SequenceNumber seq() const;
    std::string_view value() const;

   private:
    const Node* node_;
  };

 private:
  static constexpr int kMaxHeight = 12;

  // A node for `table`'s `key` and its value, allocated in the arena (not yet linked).
  Node* new_node(TableId table, std::string_view key, SequenceNumber seq, std::string_view value,
                 int height);
  int random_height();
  // Orders by table id, then entry key bytes, then sequence number descending.
  static int compare(const Node* n, const SearchKey& key, SequenceNumber seq);
  Node* find_greater_or_equal(const SearchKey& key, SequenceNumber seq, Node** prev) const;
  Node* find_less_than(const SearchKey& key, SequenceNumber seq) const;
  // The last node before `n` among those of height > `level` (head_ when there is none).
  Node* find_before_at_level(const Node* n, int level) const;
  Node* find_last() const;
  // Links `node` in; `prev` holds its predecessors at every level below max_height_.
  void link(Node* node, int height, Node** prev);

  Arena arena_;
  Node* head_;
  std::atomic<int> max_height_{1};
  std::atomic<uint64_t> entries_{0};
  static constexpr size_t kTableBuckets = 64;
  std::atomic<uint64_t> table_entries_[kTableBuckets];  // zero: C++20 value-initializes
  uint32_t rnd_ = 0xdeadbeef;
};

}  // namespace cassette::storage
