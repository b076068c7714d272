// A count of index component removals (DROP INDEX) in this process, for the readers that keep
// components in memory by SSTable: they forget what they hold when it changes, so that an index
// removed no longer answers even though its SSTables live on (sai_component.cc).
#pragma once

#include <cstdint>

namespace cassette::storage {

uint64_t index_component_removals();
// Called by Store::remove_index_components once the files are gone (or failed to go).
void note_index_component_removal();

}  // namespace cassette::storage
