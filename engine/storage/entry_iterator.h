// The one iterator interface of the read path: a sorted run of (entry key, entry value) pairs
// from a memtable or an SSTable. Keys may repeat (memtable fragments of one key, newest first);
// the merging layer above reconciles them. Each layer adds one thing, as in LevelDB.
#pragma once

#include <string_view>

#include "engine/util/status.h"

namespace cassette::storage {

class EntryIterator {
 public:
  virtual ~EntryIterator() = default;
  virtual bool valid() const = 0;
  virtual void seek(std::string_view key) = 0;           // first entry >= key
  virtual void seek_for_prev(std::string_view key) = 0;  // last entry <= key
  virtual void seek_to_last() = 0;
  virtual void next() = 0;
  virtual void prev() = 0;
  virtual std::string_view key() const = 0;    // REQUIRES: valid()
  virtual std::string_view value() const = 0;  // REQUIRES: valid()
  // Not OK when the source is corrupt: the error names the file. An iterator with a bad
  // status is not valid().
  virtual Status status() const = 0;
};

}  // namespace cassette::storage
