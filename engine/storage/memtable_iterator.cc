#include "engine/storage/memtable_iterator.h"

namespace cassette::storage {
namespace {

// Caches the current entry's key and value views (stable: they point into the memtable's arena,
// which lives as long as the memtable): the cursor asks for them several times per entry, and
// each ask of the skiplist iterator decodes the node's varint lengths again.
class MemtableEntryIterator final : public EntryIterator {
 public:
  MemtableEntryIterator(std::shared_ptr<const Memtable> mem, TableId table, SequenceNumber snapshot)
      : mem_(std::move(mem)), it_(mem_.get(), table, snapshot) {}

  bool valid() const override { return valid_; }
  void seek(std::string_view key) override {
    it_.seek(key);
    refresh();
  }
  void seek_for_prev(std::string_view key) override {
    it_.seek_for_prev(key);
    refresh();
  }
  void seek_to_last() override {
    it_.seek_to_last();
    refresh();
  }
  void next() override {
    it_.next();
    refresh();
  }
  void prev() override {
    it_.prev();
    refresh();
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return Status::ok(); }

 private:
  void refresh() {
    valid_ = it_.valid();
    if (valid_) {
      key_ = it_.key();
      value_ = it_.value();
    }
  }

  std::shared_ptr<const Memtable> mem_;
  Memtable::Iterator it_;
  bool valid_ = false;
  std::string_view key_;
  std::string_view value_;
};

}  // namespace

std::unique_ptr<EntryIterator> new_memtable_iterator(std::shared_ptr<const Memtable> memtable,
                                                     TableId table, SequenceNumber snapshot) {
  return std::make_unique<MemtableEntryIterator>(std::move(memtable), table, snapshot);
}

}  // namespace cassette::storage
