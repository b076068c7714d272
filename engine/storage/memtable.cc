#include "engine/storage/memtable.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "engine/util/coding.h"

namespace cassette::storage {

// A node: the entry's value and key, then the node's fields and its tower of next pointers, in
// one arena allocation:
//
//   [padding to 8][value][key][table w1 seq key_size value_size][next_ x height]
//                             ^ the Node
//
// The key ends where the node starts, so neither needs a pointer: 32 bytes of fields a node
// (a row of the bench's time series is a 31-byte key and a 115-byte value; RocksDB's node costs
// about 20 bytes more than the entry). The node caches what a comparison needs first: the table
// id and the key's first 8 bytes as a big-endian word (for entry keys, the partition token), so
// that most comparisons of a skiplist search are two integer compares that never touch the key
// bytes; the key's last bytes, which a comparison within a partition reads, lie in the cache
// line before the node's fields.
struct Memtable::Node {
  uint64_t table;
  uint64_t w1;  // key_word(key)
  SequenceNumber seq_;
  uint32_t key_size;
  uint32_t value_size;
  std::atomic<Node*> next_[1];  // really `height` of them

  Node* next(int level) const { return next_[level].load(std::memory_order_acquire); }
  void set_next(int level, Node* n) { next_[level].store(n, std::memory_order_release); }
  Node* relaxed_next(int level) const { return next_[level].load(std::memory_order_relaxed); }
  void relaxed_set_next(int level, Node* n) { next_[level].store(n, std::memory_order_relaxed); }

  const char* key_data() const { return reinterpret_cast<const char*>(this) - key_size; }
  std::string_view entry_key() const { return {key_data(), key_size}; }
  SequenceNumber seq() const { return seq_; }
  std::string_view value() const { return {key_data() - value_size, value_size}; }
};

namespace {
uint64_t load_big_endian64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// The first 8 bytes of `k` as a big-endian word, zero padded. Where two keys' words differ they
// order as the keys do (a shorter key padded with zeros is a prefix of the other, or differs
// from it at a real byte); where they are equal only the full bytes decide.
inline uint64_t key_word(std::string_view k) {
  if (k.size() >= 8) return load_big_endian64(k.data());
  char buf[8] = {};
  if (!k.empty()) std::memcpy(buf, k.data(), k.size());
  return load_big_endian64(buf);
}
}  // namespace

// What a search compares nodes with: a table id and an entry key, its first word taken once.
struct Memtable::SearchKey {
  uint64_t table;
  uint64_t w1;
  std::string_view key;

  static SearchKey of_node(const Node* n) { return SearchKey{n->table, n->w1, n->entry_key()}; }
};

Memtable::Memtable() : head_(new_node(0, {}, 0, {}, kMaxHeight)) {
  for (int i = 0; i < kMaxHeight; ++i) head_->set_next(i, nullptr);
}

Memtable::~Memtable() = default;  // nodes live in the arena

Memtable::Node* Memtable::new_node(TableId table, std::string_view key, SequenceNumber seq,
                                   std::string_view value, int height) {
  // One allocation: the entry, then the node and its tower, close together in memory.
  const size_t entry_size = (value.size() + key.size() + 7) & ~size_t{7};  // the node is aligned
  const size_t node_size = sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1);
  char* mem = arena_.allocate_aligned(entry_size + node_size);
  Node* node = new (mem + entry_size) Node;
  char* p = mem + entry_size - key.size() - value.size();
  if (!value.empty()) std::memcpy(p, value.data(), value.size());  // an empty view may be null
  if (!key.empty()) std::memcpy(p + value.size(), key.data(), key.size());
  node->key_size = static_cast<uint32_t>(key.size());
  node->value_size = static_cast<uint32_t>(value.size());
  node->table = table;
  node->w1 = key_word(key);
  node->seq_ = seq;
  for (int i = 1; i < height; ++i) new (&node->next_[i]) std::atomic<Node*>(nullptr);
  return node;
}

int Memtable::random_height() {
  int height = 1;
  while (height < kMaxHeight) {
    rnd_ ^= rnd_ << 13;  // xorshift32
    rnd_ ^= rnd_ >> 17;
    rnd_ ^= rnd_ << 5;
    if ((rnd_ & 3) != 0) break;  // branching factor 4
    ++height;
  }
  return height;
}

int Memtable::compare(const Node* n, const SearchKey& k, SequenceNumber seq) {
  if (n->table != k.table) return n->table < k.table ? -1 : 1;
  if (n->w1 != k.w1) return n->w1 < k.w1 ? -1 : 1;
  // Equal words of two keys of 8 bytes or more are equal first bytes: compare from there on.
  const std::string_view a = n->entry_key();
  const size_t skip = a.size() >= 8 && k.key.size() >= 8 ? 8 : 0;
  int c = a.substr(skip).compare(k.key.substr(skip));
  if (c != 0) return c;
  SequenceNumber ns = n->seq();
  return ns > seq ? -1 : (ns < seq ? 1 : 0);  // newer first
}

Memtable::Node* Memtable::find_greater_or_equal(const SearchKey& key, SequenceNumber seq,
                                                Node** prev) const {
  Node* x = head_;
  int level = max_height_.load(std::memory_order_relaxed) - 1;
  while (true) {
    Node* next = x->next(level);
    if (next != nullptr && compare(next, key, seq) < 0) {
      x = next;
    } else {
      if (prev != nullptr) prev[level] = x;
      if (level == 0) return next;
      --level;
    }
  }
}

Memtable::Node* Memtable::find_less_than(const SearchKey& key, SequenceNumber seq) const {
  Node* x = head_;
  int level = max_height_.load(std::memory_order_relaxed) - 1;
  while (true) {
    Node* next = x->next(level);
    if (next != nullptr && compare(next, key, seq) < 0) {
      x = next;
    } else {
      if (level == 0) return x == head_ ? nullptr : x;
      --level;
    }
  }
}

Memtable::Node* Memtable::find_before_at_level(const Node* n, int min_level) const {
  const SearchKey key = SearchKey::of_node(n);
  SequenceNumber seq = n->seq();
  Node* x = head_;
  int level = max_height_.load(std::memory_order_relaxed) - 1;
  while (true) {
    Node* next = x->next(level);
    if (next != nullptr && next != n && compare(next, key, seq) < 0) {
      x = next;
    } else {
      if (level <= min_level) return x;
      --level;
    }
  }
}

Memtable::Node* Memtable::find_last() const {
  Node* x = head_;
  int level = max_height_.load(std::memory_order_relaxed) - 1;
  while (true) {
    Node* next = x->next(level);
    if (next != nullptr) {
      x = next;
    } else {
      if (level == 0) return x == head_ ? nullptr : x;
      --level;
    }
  }
}

void Memtable::link(Node* node, int height, Node** prev) {
  int max_height = max_height_.load(std::memory_order_relaxed);
  if (height > max_height) {
    for (int i = max_height; i < height; ++i) prev[i] = head_;
    // Readers that see the new height before the new node find nullptr at those levels: fine.
    max_height_.store(height, std::memory_order_relaxed);
  }
  for (int i = 0; i < height; ++i) {
    node->relaxed_set_next(i, prev[i]->relaxed_next(i));
    prev[i]->set_next(i, node);  // publish
  }
}

void Memtable::add(SequenceNumber seq, TableId table, std::string_view key,
                   std::string_view value) {
  int height = random_height();
  Node* node = new_node(table, key, seq, value, height);
  Node* prev[kMaxHeight];
  find_greater_or_equal(SearchKey::of_node(node), seq, prev);
  link(node, height, prev);
  table_entries_[table % kTableBuckets].fetch_add(1, std::memory_order_relaxed);
  entries_.fetch_add(1, std::memory_order_release);
}

namespace {
uint64_t mix64(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

void Memtable::group_batch(std::vector<BatchItem>& items) {
  // A bulk load brings many rows to each of few partitions (a feed: 1,000 partitions of 1,000
  // rows): then a counting pass (a small hash table of the partitions) orders the batch in
  // linear time. With many partitions, a sort on (table, word, original position).
  const size_t n = items.size();
  const size_t max_groups = n / 16;
  if (n >= 4096) {
    struct Group {
      uint64_t table, w1;
      size_t start = 0;
    };
    std::vector<Group> groups;
    std::vector<uint32_t> slots(size_t{1} << std::bit_width(2 * max_groups), UINT32_MAX);
    const size_t mask = slots.size() - 1;
    std::vector<uint32_t> group_of(n);
    bool few = true;
    for (size_t i = 0; i < n && few; ++i) {
      const BatchItem& item = items[i];
      size_t at = mix64(item.w1 ^ mix64(item.table)) & mask;
      while (slots[at] != UINT32_MAX &&
             (groups[slots[at]].table != item.table || groups[slots[at]].w1 != item.w1)) {
        at = (at + 1) & mask;
      }
      if (slots[at] == UINT32_MAX) {
        if (groups.size() == max_groups) {
          few = false;
          break;
        }
        slots[at] = static_cast<uint32_t>(groups.size());
        groups.push_back(Group{item.table, item.w1, 0});
      }
      group_of[i] = slots[at];
      ++groups[slots[at]].start;  // a count until the prefix sums below
    }
    if (few) {
      std::vector<uint32_t> order(groups.size());
      for (uint32_t g = 0; g < order.size(); ++g) order[g] = g;
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return groups[a].table != groups[b].table ? groups[a].table < groups[b].table
                                                  : groups[a].w1 < groups[b].w1;
      });
      size_t start = 0;
      for (uint32_t g : order) start += std::exchange(groups[g].start, start);
      std::vector<BatchItem> grouped(n);
      for (size_t i = 0; i < n; ++i) grouped[groups[group_of[i]].start++] = items[i];
      items.swap(grouped);
      return;
    }
  }
  std::sort(items.begin(), items.end(), [](const BatchItem& a, const BatchItem& b) {
    if (a.table != b.table) return a.table < b.table;
    if (a.w1 != b.w1) return a.w1 < b.w1;
    return a.entry < b.entry;  // entries lie in batch order: their original order
  });
}

void Memtable::add_batch(SequenceNumber seq, const std::vector<BatchEntry>& entries) {
  if (entries.empty()) return;
  // Group the entries by partition (table id, then token: the words a node caches), keeping
  // their order within a partition. Integers only: no key bytes are touched.
  std::vector<BatchItem> items;
  items.reserve(entries.size());
  for (const BatchEntry& e : entries) items.push_back(BatchItem{e.table, key_word(e.key), &e});
  group_batch(items);

  // prev[i]: the predecessors (at each level) of the last node added, which was linked right
  // after them. Within a partition rows usually arrive in clustering order or in reverse (a
  // feed writing increasing timestamps into a DESC clustering): the next key then goes just
  // after the last node (search forward from it) or into the same gap just before it (prev is
  // already right), and only a key elsewhere needs a search from the top.
  Node* prev[kMaxHeight];
  for (int i = 0; i < kMaxHeight; ++i) prev[i] = head_;
  Node* last = nullptr;
  int last_height = 0;
  // In sorted order the entries' bytes are visited far from the order they lie in memory (a
  // feed interleaves partitions): fetch them a few entries ahead, so that the cache misses
  // overlap instead of stalling each insertion in turn.
  constexpr size_t kPrefetchDistance = 8;
  for (size_t n = 0; n < items.size(); ++n) {
    if (n + kPrefetchDistance < items.size()) {
      const BatchEntry& ahead = *items[n + kPrefetchDistance].entry;
      __builtin_prefetch(ahead.key.data());
      __builtin_prefetch(ahead.value.data());
    }
    if (n + 2 * kPrefetchDistance < items.size())
      __builtin_prefetch(items[n + 2 * kPrefetchDistance].entry);
    const BatchItem& item = items[n];
    const BatchEntry& e = *item.entry;
    int height = random_height();
    Node* node = new_node(e.table, e.key, seq, e.value, height);
    const SearchKey key = SearchKey::of_node(node);
    bool found = false;
    if (last != nullptr && compare(last, key, seq) < 0) {
      // After the last node: climb while the node after the finger at this level is still
      // before the key; from the level where it is not, descend as a normal search does (the
      // predecessors at the levels above are already right).
      for (int i = 0; i < last_height; ++i) prev[i] = last;
      const int max_height = max_height_.load(std::memory_order_relaxed);
      int level = 0;
      while (level < max_height - 1) {
        Node* next = prev[level]->next(level);
        if (next == nullptr || compare(next, key, seq) >= 0) break;
        ++level;
      }
      Node* x = prev[level];
      while (true) {
        Node* next = x->next(level);
        if (next != nullptr && compare(next, key, seq) < 0) {
          x = next;
        } else {
          prev[level] = x;
          if (level == 0) break;
          --level;
        }
      }
      found = true;
    } else if (last != nullptr) {
      // At or before the last node: in the same gap when after its level-0 predecessor.
      found = prev[0] == head_ || compare(prev[0], key, seq) < 0;
    }
    if (!found) find_greater_or_equal(key, seq, prev);
    link(node, height, prev);
    last = node;
    last_height = height;
    table_entries_[e.table % kTableBuckets].fetch_add(1, std::memory_order_relaxed);
  }
  entries_.fetch_add(entries.size(), std::memory_order_release);
}

// ---- Iterator --------------------------------------------------------------------------------

Memtable::Iterator::Iterator(const Memtable* mem, TableId table, SequenceNumber snapshot)
    : mem_(mem), table_(table), snapshot_(snapshot) {}

bool Memtable::Iterator::in_table() const {
  if (node_ == nullptr) return false;
  return node_->table == table_;
}

bool Memtable::Iterator::valid() const {
  return in_table();
}

void Memtable::Iterator::skip_invisible_forward() {
  while (in_table() && node_->seq() > snapshot_) node_ = node_->next(0);
}

void Memtable::Iterator::skip_invisible_backward() {
  while (in_table() && node_->seq() > snapshot_) step_back();
}

// Moves node_ to the node before it (nullptr before the first).
void Memtable::Iterator::step_back() {
  if (before_.empty()) {
    // Search for a node about 16 entries back (two levels up the tower of a branching factor 4
    // skiplist) and collect the nodes from there up to node_.
    const Node* from = mem_->find_before_at_level(node_, 2);
    const Node* x = from == mem_->head_ ? mem_->head_->next(0) : from;
    for (; x != nullptr && x != node_; x = x->next(0)) before_.push_back(x);
    if (before_.empty()) {
      node_ = nullptr;  // node_ was the first node
      return;
    }
  }
  node_ = before_.back();
  before_.pop_back();
}

void Memtable::Iterator::seek(std::string_view key) {
  before_.clear();
  node_ = mem_->find_greater_or_equal(SearchKey{table_, key_word(key), key}, UINT64_MAX, nullptr);
  skip_invisible_forward();
}

void Memtable::Iterator::seek_for_prev(std::string_view key) {
  before_.clear();
  // The last node <= key: every fragment of `key` sorts before (key, seq 0) but those at seq 0
  // (an overlay's), which sort last among equal keys and are stepped over after one search.
  const SearchKey search{table_, key_word(key), key};
  const Node* x = mem_->find_less_than(search, 0);
  const Node* next = x == nullptr ? mem_->head_->next(0) : x->next(0);
  while (next != nullptr && compare(next, search, 0) == 0) {
    x = next;
    next = next->next(0);
  }
  node_ = x;
  skip_invisible_backward();
}

void Memtable::Iterator::seek_to_first() {
  seek({});
}

void Memtable::Iterator::seek_to_last() {
  before_.clear();
  Node* after = nullptr;
  if (table_ != UINT64_MAX) {  // the first node of the next table id
    after = mem_->find_greater_or_equal(SearchKey{table_ + 1, 0, {}}, UINT64_MAX, nullptr);
  }
  node_ = after == nullptr ? mem_->find_last()
                           : mem_->find_less_than(SearchKey::of_node(after), after->seq());
  skip_invisible_backward();
}

void Memtable::Iterator::next() {
  before_.clear();
  node_ = node_->next(0);
  skip_invisible_forward();
}

void Memtable::Iterator::prev() {
  step_back();
  skip_invisible_backward();
}

std::string_view Memtable::Iterator::key() const {
  return node_->entry_key();
}

std::string_view Memtable::Iterator::value() const {
  return node_->value();
}

// ---- RawIterator -----------------------------------------------------------------------------

Memtable::RawIterator::RawIterator(const Memtable* mem) : node_(mem->head_->next(0)) {}
void Memtable::RawIterator::next() {
  node_ = node_->next(0);
}
TableId Memtable::RawIterator::table() const {
  return node_->table;
}
std::string_view Memtable::RawIterator::key() const {
  return node_->entry_key();
}
SequenceNumber Memtable::RawIterator::seq() const {
  return node_->seq();
}
std::string_view Memtable::RawIterator::value() const {
  return node_->value();
}

}  // namespace cassette::storage
