// The tests' way into a Store's insides (Store declares StoreInternals its friend).
#pragma once

#include "engine/storage/store.h"
#include "engine/storage/store_directory.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {

struct StoreInternals {
  // A second Store on the existing store at `path`, beside the one this process may have open
  // there (Store::open hands out that one): its own state, table cache and lock, as another
  // process would have. Opened as Store::open does, without the registry.
  static Result<std::shared_ptr<Store>> open_as_another_process(const std::string& path,
                                                                const StoreOptions& options) {
    CASSETTE_ASSIGN_OR_RETURN(StoreDirectory found,
                              open_store_directory(path, /*create_if_missing=*/false));
    std::shared_ptr<Store> store(new Store(found.path, options));
    store->p_->directory = found;
    store->p_->read_only = !found.writable;
    CASSETTE_RETURN_IF_ERROR(store->p_->recover());
    return store;
  }
  // From now on a transaction of at least `bytes` commits as SSTables (0: never). REQUIRES: no
  // write in flight.
  static void set_sstable_commit_bytes(Store& store, uint64_t bytes) {
    store.p_->sstable_commit_bytes = bytes;
  }
};

}  // namespace cassette::storage
