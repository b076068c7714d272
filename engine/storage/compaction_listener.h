// Who follows this process's compactions: the ANN graphs (engine/cql/ann_index.h) make the graph
// of a compaction's output from the graph of one of its inputs instead of building it again, and
// need to know which SSTables replaced which while the inputs are still on disk.
//
//   storage::set_compaction_listener([](const storage::CompactionEvent& e) { queue(e); });
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/storage/ids.h"

namespace cassette::storage {

struct TableFile;

// One compaction of this process, once installed: `inputs` (obsolete, but whole on disk with
// their index components for as long as someone holds them) were replaced by `outputs` (none
// when nothing was left). `components` are the names of the index components the store writes
// for the table (Store::set_index_components).
struct CompactionEvent {
  std::string store_path;  // Store::path()
  TableId table = 0;
  std::vector<std::shared_ptr<TableFile>> inputs;
  std::vector<std::shared_ptr<TableFile>> outputs;
  std::vector<std::string> components;
};

// Called on the compacting thread (a commit's inline step, the background thread, an explicit
// compaction) after the install, with none of the store's locks held: it must only take what it
// needs and return (holding `inputs` keeps their files on disk until it lets go).
using CompactionListener = std::function<void(const CompactionEvent&)>;

// Process-wide: every store of the process tells `listener` (replacing the previous one; an
// empty one stops). Stores opened in memory tell nothing.
void set_compaction_listener(CompactionListener listener);

// Called by the store (store_compaction.cc).
void notify_compaction(const CompactionEvent& event);

}  // namespace cassette::storage
