#include "engine/storage/memtable.h"

#include <algorithm>
#include <cstring>

#include "engine/util/coding.h"

namespace cassette::storage {

// A node holds its entry right after the tower of next pointers: [full key][value]. The node
// caches what a comparison needs first: the key's first 16 bytes as two big-endian words (the
// table id and, for entry keys, the partition token), so that most comparisons of a skiplist
// search are two integer compares that never touch the key bytes; and the sequence number.
struct Memtable::Node {
  const char* key;
  uint32_t key_size;
  uint32_t value_size;
  uint64_t w0, w1;  // prefix_words(full key)
  SequenceNumber seq_;
  std::atomic<Node*> next_[1];  // really `height` of them

  Node* next(int level) const { return next_[level].load(std::memory_order_acquire); }
  void set_next(int level, Node* n) { next_[level].store(n, std::memory_order_release); }
  Node* relaxed_next(int level) const { return next_[level].load(std::memory_order_relaxed); }
  void relaxed_set_next(int level, Node* n) { next_[level].store(n, std::memory_order_relaxed); }

  std::string_view full_key() const { return {key, key_size}; }
  SequenceNumber seq() const { return seq_; }
  std::string_view value() const { return {key + key_size, value_size}; }
};

namespace {
std::string table_prefix(TableId table) {
  std::string p;
  coding::put_big_endian64(&p, table);
  return p;
}

uint64_t load_big_endian64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

// The first 16 bytes of `k` as two big-endian words, zero padded. Where two keys' words differ
// they order as the keys do (a shorter key padded with zeros is a prefix of the other, or
// differs from it at a real byte); where they are equal only the full bytes decide.
inline void prefix_words(std::string_view k, uint64_t* w0, uint64_t* w1) {
  if (k.size() >= 16) {
    *w0 = load_big_endian64(k.data());
    *w1 = load_big_endian64(k.data() + 8);
    return;
  }
  char buf[16] = {};
  if (!k.empty()) std::memcpy(buf, k.data(), k.size());
  *w0 = load_big_endian64(buf);
  *w1 = load_big_endian64(buf + 8);
}
}  // namespace

Memtable::Memtable() : head_(new_node({}, {}, 0, {}, kMaxHeight)) {
  for (int i = 0; i < kMaxHeight; ++i) head_->set_next(i, nullptr);
}

Memtable::~Memtable() = default;  // nodes live in the arena

Memtable::Node* Memtable::new_node(std::string_view prefix, std::string_view key,
                                   SequenceNumber seq, std::string_view value, int height) {
  // One allocation: the node, its tower, then the entry (close together in memory).
  size_t node_size = sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1);
  size_t key_size = prefix.size() + key.size();
  char* mem = arena_.allocate_aligned(node_size + key_size + value.size());
  Node* node = new (mem) Node;
  char* p = mem + node_size;
  node->key = p;
  node->key_size = static_cast<uint32_t>(key_size);
  node->value_size = static_cast<uint32_t>(value.size());
  node->seq_ = seq;
  for (std::string_view part : {prefix, key, value}) {
    if (!part.empty()) std::memcpy(p, part.data(), part.size());  // an empty view may be null
    p += part.size();
  }
  prefix_words(node->full_key(), &node->w0, &node->w1);
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

int Memtable::compare(const Node* n, std::string_view key, SequenceNumber seq) {
  uint64_t k0, k1;
  prefix_words(key, &k0, &k1);
  if (n->w0 != k0) return n->w0 < k0 ? -1 : 1;
  if (n->w1 != k1) return n->w1 < k1 ? -1 : 1;
  int c = n->full_key().compare(key);
  if (c != 0) return c;
  SequenceNumber ns = n->seq();
  return ns > seq ? -1 : (ns < seq ? 1 : 0);  // newer first
}

Memtable::Node* Memtable::find_greater_or_equal(std::string_view key, SequenceNumber seq,
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

Memtable::Node* Memtable::find_less_than(std::string_view key, SequenceNumber seq) const {
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
  std::string_view key = n->full_key();
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
  char prefix[8];
  std::string_view prefix_view(prefix, 8);
  uint64_t be = __builtin_bswap64(table);
  std::memcpy(prefix, &be, 8);
  int height = random_height();
  Node* node = new_node(prefix_view, key, seq, value, height);
  Node* prev[kMaxHeight];
  find_greater_or_equal(node->full_key(), seq, prev);
  link(node, height, prev);
  table_entries_[table % kTableBuckets].fetch_add(1, std::memory_order_relaxed);
  entries_.fetch_add(1, std::memory_order_release);
}

void Memtable::add_batch(SequenceNumber seq, const std::vector<BatchEntry>& entries) {
  if (entries.empty()) return;
  // Group the entries by partition (table id, then token: the words a node caches), keeping
  // their order within a partition. A stable sort on integers only: no key bytes are touched.
  struct Item {
    uint64_t table;
    uint64_t w1;
    const BatchEntry* entry;
  };
  std::vector<Item> items;
  items.reserve(entries.size());
  for (const BatchEntry& e : entries) {
    char buf[8] = {};
    std::memcpy(buf, e.key.data(), std::min<size_t>(8, e.key.size()));
    items.push_back(Item{e.table, load_big_endian64(buf), &e});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.table != b.table ? a.table < b.table : a.w1 < b.w1;
  });

  // prev[i]: the predecessors (at each level) of the last node added, which was linked right
  // after them. Within a partition rows usually arrive in clustering order or in reverse (a
  // feed writing increasing timestamps into a DESC clustering): the next key then goes just
  // after the last node (search forward from it) or into the same gap just before it (prev is
  // already right), and only a key elsewhere needs a search from the top.
  Node* prev[kMaxHeight];
  for (int i = 0; i < kMaxHeight; ++i) prev[i] = head_;
  Node* last = nullptr;
  int last_height = 0;
  for (const Item& item : items) {
    const BatchEntry& e = *item.entry;
    char prefix[8];
    uint64_t be = __builtin_bswap64(e.table);
    std::memcpy(prefix, &be, 8);
    int height = random_height();
    Node* node = new_node(std::string_view(prefix, 8), e.key, seq, e.value, height);
    std::string_view key = node->full_key();
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
    : mem_(mem), table_prefix_(table_prefix(table)), snapshot_(snapshot) {}

bool Memtable::Iterator::in_table() const {
  if (node_ == nullptr) return false;
  std::string_view k = node_->full_key();
  return k.size() >= 8 && std::memcmp(k.data(), table_prefix_.data(), 8) == 0;  // inlined: 8 bytes
}

bool Memtable::Iterator::valid() const { return in_table(); }

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
  scratch_ = table_prefix_;
  scratch_.append(key);
  node_ = mem_->find_greater_or_equal(scratch_, UINT64_MAX, nullptr);
  skip_invisible_forward();
}

void Memtable::Iterator::seek_for_prev(std::string_view key) {
  before_.clear();
  scratch_ = table_prefix_;
  scratch_.append(key);
  // The last node <= key: every fragment of `key` sorts before (key, seq 0) but those at seq 0
  // (an overlay's), which sort last among equal keys and are stepped over after one search.
  const Node* x = mem_->find_less_than(scratch_, 0);
  const Node* next = x == nullptr ? mem_->head_->next(0) : x->next(0);
  while (next != nullptr && compare(next, scratch_, 0) == 0) {
    x = next;
    next = next->next(0);
  }
  node_ = x;
  skip_invisible_backward();
}

void Memtable::Iterator::seek_to_first() { seek({}); }

void Memtable::Iterator::seek_to_last() {
  before_.clear();
  TableId table = coding::decode_big_endian64(table_prefix_.data());
  Node* after = nullptr;
  if (table != UINT64_MAX) {  // the first node of the next table id
    scratch_ = table_prefix(table + 1);
    after = mem_->find_greater_or_equal(scratch_, UINT64_MAX, nullptr);
  }
  node_ = after == nullptr ? mem_->find_last()
                           : mem_->find_less_than(after->full_key(), after->seq());
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
  return node_->full_key().substr(table_prefix_.size());
}

std::string_view Memtable::Iterator::value() const { return node_->value(); }

// ---- RawIterator -----------------------------------------------------------------------------

Memtable::RawIterator::RawIterator(const Memtable* mem) : node_(mem->head_->next(0)) {}
void Memtable::RawIterator::next() { node_ = node_->next(0); }
TableId Memtable::RawIterator::table() const {
  return coding::decode_big_endian64(node_->full_key().data());
}
std::string_view Memtable::RawIterator::key() const { return node_->full_key().substr(8); }
SequenceNumber Memtable::RawIterator::seq() const { return node_->seq(); }
std::string_view Memtable::RawIterator::value() const { return node_->value(); }

}  // namespace cassette::storage
