// Index components: files written next to an SSTable from the very entries written into it, by
// builders a higher layer registers per table (storage-attached indexes, vector indexes). The
// storage engine knows nothing of what a component holds; it runs the builders wherever an
// SSTable is written (flush, compaction, a large transaction's direct SSTables), renames their
// files into place with the SSTable, and removes them with it. FORMAT.md, "Index components".
//
// A component of SSTable `t5-00ab.sst` named `sai.ks.users_email_idx` is the file
// `t5-00ab.sst.sai.ks.users_email_idx`. A reader that finds a component missing (an SSTable
// written by a process that did not know the index yet) must not trust the index for that file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/ids.h"
#include "engine/util/status.h"

namespace cassette::storage {

class SSTableReader;

// Builds one component of one SSTable. add() sees every entry (entry key, encoded value) in key
// order, as written; finish() writes the component to `path` and fsyncs it. A builder that is
// destroyed unfinished leaves nothing behind.
//
// data_block() says where the entries went: every entry added since the call before (or since
// the start) lies in the SSTable's data block at `offset` (its payload) of `size` bytes (without
// the trailer), block_format.h. The writer calls it after the add() of a block's last entry,
// before finish(); a component may record it to let a reader go straight to an entry's block.
class IndexComponentBuilder {
 public:
  virtual ~IndexComponentBuilder() = default;
  virtual Status add(std::string_view key, std::string_view value) = 0;
  virtual void data_block(uint64_t offset, uint64_t size) {}
  virtual Status finish(const std::string& path) = 0;
};

struct IndexComponentFactory {
  std::string name;  // the file suffix: letters, digits, '_', '-' and '.'
  std::function<std::unique_ptr<IndexComponentBuilder>()> make;
};

// Every table's component factories (Store::set_index_components).
using IndexComponentMap = std::map<TableId, std::vector<IndexComponentFactory>>;

bool valid_component_name(std::string_view name);
std::string index_component_path(std::string_view sstable_path, std::string_view name);
// The SSTable file name a component file name belongs to ("t5-00ab.sst" of
// "t5-00ab.sst.sai.x"); empty when `file_name` names no component.
std::string_view component_sstable_name(std::string_view file_name);

// The builders of one SSTable being written: every entry goes to each; finish() writes each
// component next to the SSTable's (temporary) path and returns their names; remove() deletes
// what finish() wrote (an SSTable that is abandoned).
class IndexComponentWriters {
 public:
  explicit IndexComponentWriters(const std::vector<IndexComponentFactory>& factories);
  bool empty() const { return builders_.empty(); }
  Status add(std::string_view key, std::string_view value);
  void data_block(uint64_t offset, uint64_t size);
  Result<std::vector<std::string>> finish(const std::string& sstable_path);

 private:
  std::vector<std::pair<std::string, std::unique_ptr<IndexComponentBuilder>>> builders_;
};

// Writes component `factory` for an SSTable already in place by reading it whole (an index
// created on a table with data). Written under a temporary name and renamed, so a reader sees
// the whole component or none.
Status build_index_component(const SSTableReader& reader, const IndexComponentFactory& factory);

}  // namespace cassette::storage
