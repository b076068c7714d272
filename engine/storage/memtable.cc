#include "engine/storage/memtable.h"

#include <cstring>

#include "engine/util/coding.h"

namespace cassette::storage {

// A node holds its entry inline after the tower of next pointers:
//   [varint32 full key length][full key][fixed64 seq][varint32 value length][value]
struct Memtable::Node {
  const char* entry;
  std::atomic<Node*> next_[1];  // really `height` of them

  Node* next(int level) const { return next_[level].load(std::memory_order_acquire); }
  void set_next(int level, Node* n) { next_[level].store(n, std::memory_order_release); }
  Node* relaxed_next(int level) const { return next_[level].load(std::memory_order_relaxed); }
  void relaxed_set_next(int level, Node* n) { next_[level].store(n, std::memory_order_relaxed); }

  std::string_view full_key() const {
    std::string_view in(entry, 5);
    uint32_t len = 0;
    coding::get_varint32(&in, &len);
    return {in.data(), len};
  }
  SequenceNumber seq() const {
    std::string_view k = full_key();
    return coding::decode_fixed64(k.data() + k.size());
  }
  std::string_view value() const {
    std::string_view k = full_key();
    std::string_view in(k.data() + k.size() + 8, 5);
    uint32_t len = 0;
    coding::get_varint32(&in, &len);
    return {in.data(), len};
  }
};

namespace {
std::string table_prefix(TableId table) {
  std::string p;
  coding::put_big_endian64(&p, table);
  return p;
}
}  // namespace

Memtable::Memtable() : head_(new_node({}, 0, {}, kMaxHeight)) {
  for (int i = 0; i < kMaxHeight; ++i) head_->set_next(i, nullptr);
}

Memtable::~Memtable() = default;  // nodes live in the arena

Memtable::Node* Memtable::new_node(std::string_view full_key, SequenceNumber seq,
                                   std::string_view value, int height) {
  std::string header;
  coding::put_varint32(&header, static_cast<uint32_t>(full_key.size()));
  std::string middle;
  coding::put_fixed64(&middle, seq);
  coding::put_varint32(&middle, static_cast<uint32_t>(value.size()));
  size_t entry_size = header.size() + full_key.size() + middle.size() + value.size();
  char* entry = arena_.allocate(entry_size);
  char* p = entry;
  for (std::string_view part : {std::string_view(header), full_key, std::string_view(middle), value}) {
    if (!part.empty()) std::memcpy(p, part.data(), part.size());  // an empty view may be null
    p += part.size();
  }

  char* mem = arena_.allocate_aligned(sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1));
  Node* node = new (mem) Node;
  node->entry = entry;
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

void Memtable::add(SequenceNumber seq, TableId table, std::string_view key,
                   std::string_view value) {
  std::string full_key = table_prefix(table);
  full_key.append(key);
  Node* prev[kMaxHeight];
  find_greater_or_equal(full_key, seq, prev);
  int height = random_height();
  int max_height = max_height_.load(std::memory_order_relaxed);
  if (height > max_height) {
    for (int i = max_height; i < height; ++i) prev[i] = head_;
    // Readers that see the new height before the new node find nullptr at those levels: fine.
    max_height_.store(height, std::memory_order_relaxed);
  }
  Node* node = new_node(full_key, seq, value, height);
  for (int i = 0; i < height; ++i) {
    node->relaxed_set_next(i, prev[i]->relaxed_next(i));
    prev[i]->set_next(i, node);  // publish
  }
  entries_.fetch_add(1, std::memory_order_release);
}

// ---- Iterator --------------------------------------------------------------------------------

Memtable::Iterator::Iterator(const Memtable* mem, TableId table, SequenceNumber snapshot)
    : mem_(mem), table_prefix_(table_prefix(table)), snapshot_(snapshot) {}

bool Memtable::Iterator::in_table() const {
  return node_ != nullptr && node_->full_key().starts_with(table_prefix_);
}

bool Memtable::Iterator::valid() const { return in_table(); }

void Memtable::Iterator::skip_invisible_forward() {
  while (in_table() && node_->seq() > snapshot_) node_ = node_->next(0);
}

void Memtable::Iterator::skip_invisible_backward() {
  while (in_table() && node_->seq() > snapshot_) {
    std::string_view k = node_->full_key();
    node_ = mem_->find_less_than(k, node_->seq());
  }
}

void Memtable::Iterator::seek(std::string_view key) {
  scratch_ = table_prefix_;
  scratch_.append(key);
  node_ = mem_->find_greater_or_equal(scratch_, UINT64_MAX, nullptr);
  skip_invisible_forward();
}

void Memtable::Iterator::seek_for_prev(std::string_view key) {
  scratch_ = table_prefix_;
  scratch_.append(key);
  // The last node <= key is the one just before the first node > key: seek past every
  // sequence number of `key` (seq 0 sorts last among equal keys).
  Node* after = mem_->find_greater_or_equal(scratch_, 0, nullptr);
  if (after != nullptr && compare(after, scratch_, 0) == 0) after = after->next(0);
  node_ = after == nullptr ? mem_->find_last()
                           : mem_->find_less_than(after->full_key(), after->seq());
  skip_invisible_backward();
}

void Memtable::Iterator::seek_to_first() { seek({}); }

void Memtable::Iterator::seek_to_last() {
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
  node_ = node_->next(0);
  skip_invisible_forward();
}

void Memtable::Iterator::prev() {
  node_ = mem_->find_less_than(node_->full_key(), node_->seq());
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
