#include "engine/storage/memtable_iterator.h"

namespace cassette::storage {
namespace {

class MemtableEntryIterator final : public EntryIterator {
 public:
  MemtableEntryIterator(std::shared_ptr<const Memtable> mem, TableId table, SequenceNumber snapshot)
      : mem_(std::move(mem)), it_(mem_.get(), table, snapshot) {}

  bool valid() const override { return it_.valid(); }
  void seek(std::string_view key) override { it_.seek(key); }
  void seek_for_prev(std::string_view key) override { it_.seek_for_prev(key); }
  void seek_to_last() override { it_.seek_to_last(); }
  void next() override { it_.next(); }
  void prev() override { it_.prev(); }
  std::string_view key() const override { return it_.key(); }
  std::string_view value() const override { return it_.value(); }
  Status status() const override { return Status::ok(); }

 private:
  std::shared_ptr<const Memtable> mem_;
  Memtable::Iterator it_;
};

}  // namespace

std::unique_ptr<EntryIterator> new_memtable_iterator(std::shared_ptr<const Memtable> memtable,
                                                     TableId table, SequenceNumber snapshot) {
  return std::make_unique<MemtableEntryIterator>(std::move(memtable), table, snapshot);
}

}  // namespace cassette::storage
