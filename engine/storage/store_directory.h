// A store's directory and its identity (engine/storage/FORMAT.md, "The CASSETTE file").
//
// A directory is a store when it holds a CASSETTE file, written (durably) when the store is made.
// Store::open makes a store only in a missing directory whose parent exists, or in an empty
// one; a non-empty directory without that file is refused, so a wrong path never fills a
// directory with store files. Stores made before the file existed (MANIFEST, log/ or data/ but
// no CASSETTE) still open and get it when their directory is writable.
//
// While a store is open its directory must stay the one it opened: the Store remembers its
// (st_dev, st_ino) and checks it before each write transaction and each catch-up (which read
// the directory anyway), so a store whose directory was removed, or replaced by another, fails
// ("store directory ... was removed") instead of writing into unlinked files.
#pragma once

#include <string>

#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

inline constexpr char kStoreMarkerName[] = "CASSETTE";
inline constexpr int kStoreFormatVersion = 1;

struct StoreDirectory {
  std::string path;  // absolute and canonical
  file::FileIdentity identity;
  bool writable = false;  // false: a read-only store (no write permission, read-only media)
};

// Finds (or, when `create_if_missing`, makes) the store at `path`. NotFound when there is no
// store and none may be made; InvalidArgument for a directory that is not a store and not empty.
Result<StoreDirectory> open_store_directory(const std::string& path, bool create_if_missing);

// OK while `dir` still names the directory that was opened; IOError once it was removed or
// replaced.
Status check_store_directory(const StoreDirectory& dir);

// The error every write to a read-only store (`writable` false) fails with, naming it.
Status read_only_store_error(const std::string& path);

}  // namespace cassette::storage
