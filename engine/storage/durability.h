// Deferred durability: a commit that returns before its record is durable, and a callback once
// it is (group commit without a thread parked per commit).
//
// Under SyncMode::kFull a commit appends its record, lets go of the store's locks and then waits
// for an fsync that covers it (FORMAT.md "Group commit"); the record stays invisible to other
// readers until then. A server that runs many requests would park one thread per commit in that
// wait. Instead, while a DeferredDurability is installed on a thread, the store's commits on that
// thread return as soon as the record is appended (still invisible to others, exactly as a
// waiting commit is), and the object collects them. The server then hands them over:
//
//   storage::DeferredDurability deferred;          // this thread's commits defer their sync
//   Reply reply = run(request);                    // commits, returns before the fsync
//   deferred.when_durable([=](const Status& s) {   // on the thread whose fsync covered it
//     send(s.is_ok() ? reply : error(s));          // nothing acknowledged before it is durable
//   });
//
// The callback runs once every deferred commit is durable and visible (OK), or with the error of
// the sync that failed one of them (that commit stays invisible and fails, as a waiting one
// does). One thread at a time leads the syncs of every handed-over commit of the process (each
// fsync covers all records appended before it); the others return at once.
//
// A thread that reads or writes the store again while it holds deferred commits first waits for
// them (Store::snapshot, every commit): a request always sees its own writes. Catalog changes
// never defer (Suspend): the schema a connection announces is durable.
//
// kNormal and kOff: commits never wait for a sync, so nothing is deferred.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/storage/commit_log.h"
#include "engine/util/status.h"

namespace cassette::storage {

class DeferredDurability {
 public:
  // Installs this object as the thread's. REQUIRES: none is installed on this thread.
  DeferredDurability();
  // Commits not handed over with when_durable are waited for here.
  ~DeferredDurability();
  DeferredDurability(const DeferredDurability&) = delete;
  DeferredDurability& operator=(const DeferredDurability&) = delete;

  // Whether commits wait to be handed over.
  bool pending() const { return !commits_.empty(); }

  // Hands the deferred commits over: `done` runs once all are durable and visible (OK), or with
  // the first error; at once on this thread when nothing is pending, else on the thread whose
  // fsync covers them (possibly this one, before this call returns). Afterwards nothing is
  // pending. `done` must be quick (post the answer elsewhere): it runs on the syncing thread.
  void when_durable(std::function<void(const Status&)> done);

  // Waits here for the deferred commits; the first error. Afterwards nothing is pending.
  Status wait();

  // The store's side. This thread's object, or nullptr (none, or suspended).
  static DeferredDurability* current();
  // A commit whose record `writer` appended through `end`, not yet known durable: `settle` runs
  // exactly once with the outcome of its sync (it makes the record visible on success), before
  // the callback of when_durable.
  void defer(std::shared_ptr<CommitLogWriter> writer, LogPosition end,
             std::function<void(const Status&)> settle);

  // While alive, this thread's commits wait for their sync as without a DeferredDurability.
  // (A commit of its own covers the log through the deferred ones before it, and makes them
  // visible with it: the log and the sequence numbers are in the same order.)
  class Suspend {
   public:
    Suspend();
    ~Suspend();
    Suspend(const Suspend&) = delete;
    Suspend& operator=(const Suspend&) = delete;

   private:
    DeferredDurability* suspended_;
  };

  struct Commit {
    std::shared_ptr<CommitLogWriter> writer;
    LogPosition end;
    std::function<void(const Status&)> settle;
  };

 private:
  std::vector<Commit> commits_;
};

}  // namespace cassette::storage
