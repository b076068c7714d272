// Removes files the store no longer needs (SSTables compacted away or truncated, commit-log
// segments a flush covers) off the thread that lets go of them.
//
// Unlinking a file frees its extents: 20-45 ms for a merged SSTable on a busy disk, up to 180 ms
// for a commit-log segment (strace of tests/bench/bench_latency.sh). Whoever drops the last
// reference of an obsolete SSTable (a commit's compaction step in inline mode, a reader letting
// go of its snapshot) or finishes a flush would otherwise wait that long, holding up the commit
// it serves. One thread per process does the removals in the order they were handed over.
//
// A store that wants no engine thread (a PostgreSQL backend: background threads off, sync full
// or off) keeps its removals on the caller's thread, as before: the removals of SSTables go to the
// reaper only for the directories of stores that run threads anyway (register_threaded_store).
// A removal still queued when the process exits leaves its file behind, which the next open
// removes as an orphan (SSTables) or ignores and removes with the next flush (segments): nothing
// a reader needs is ever queued.
#pragma once

#include <functional>
#include <string>

namespace cassette::storage {

// The SSTables under `data_dir` go to the reaper while the store registered lives (a store that
// runs threads anyway: background threads, or sync normal's log thread). Counted: two stores of
// one process on one directory each register and unregister.
void register_threaded_store(const std::string& data_dir);
void unregister_threaded_store(const std::string& data_dir);
// Whether the removals of files under `data_dir` go to the reaper.
bool threaded_store(const std::string& data_dir);

// Runs `removal` on the reaper's thread (when a thread can be had, else now). `removal` must not
// throw; its errors are its own to ignore (a file left behind is removed later: see above).
void reap_later(std::function<void()> removal);

// Waits until every removal handed over so far in this process is done (Store::flush,
// Store::compact, Store::wait_for_background_work and ~Store: their callers expect the files
// gone once they return).
void drain_file_reaper();

}  // namespace cassette::storage
