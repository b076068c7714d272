#include "engine/storage/durability.h"

#include <mutex>
#include <utility>

namespace cassette::storage {

namespace {

thread_local DeferredDurability* this_thread_deferred = nullptr;

// Waits for each commit's sync and settles it; the first error. The first wait syncs the log
// through everything appended so far, so the others usually return at once.
Status settle(std::vector<DeferredDurability::Commit>& commits) {
  Status first;
  for (DeferredDurability::Commit& commit : commits) {
    Status s = commit.writer->wait_durable(commit.end);
    commit.settle(s);
    if (first.is_ok() && !s.is_ok()) first = s;
  }
  commits.clear();
  return first;
}

// The commits handed over by when_durable, across the process. The thread that hands some over
// while nobody leads becomes the leader: it syncs (one fsync covers every commit handed over
// before it began), runs their callbacks, and goes on while more were handed over meanwhile.
class DurabilityWaiters {
 public:
  struct Group {
    std::vector<DeferredDurability::Commit> commits;
    std::function<void(const Status&)> done;
  };

  void hand_over(Group group) {
    {
      std::lock_guard lock(mutex_);
      waiting_.push_back(std::move(group));
      if (leading_) return;
      leading_ = true;
    }
    for (;;) {
      std::vector<Group> groups;
      {
        std::lock_guard lock(mutex_);
        if (waiting_.empty()) {
          leading_ = false;
          return;
        }
        groups.swap(waiting_);
      }
      for (Group& g : groups) g.done(settle(g.commits));
    }
  }

 private:
  std::mutex mutex_;
  std::vector<Group> waiting_;
  bool leading_ = false;
};

DurabilityWaiters& waiters() {
  static DurabilityWaiters* instance = new DurabilityWaiters();  // never destroyed: used until exit
  return *instance;
}

}  // namespace

DeferredDurability::DeferredDurability() {
  this_thread_deferred = this;
}

DeferredDurability::~DeferredDurability() {
  (void)wait();
  this_thread_deferred = nullptr;
}

DeferredDurability* DeferredDurability::current() {
  return this_thread_deferred;
}

void DeferredDurability::defer(std::shared_ptr<CommitLogWriter> writer, LogPosition end,
                               std::function<void(const Status&)> settle) {
  commits_.push_back(Commit{std::move(writer), end, std::move(settle)});
}

Status DeferredDurability::wait() {
  return settle(commits_);
}

void DeferredDurability::when_durable(std::function<void(const Status&)> done) {
  if (commits_.empty()) return done(Status::ok());
  DurabilityWaiters::Group group{std::move(commits_), std::move(done)};
  commits_.clear();
  waiters().hand_over(std::move(group));
}

DeferredDurability::Suspend::Suspend() : suspended_(this_thread_deferred) {
  this_thread_deferred = nullptr;
}

DeferredDurability::Suspend::~Suspend() {
  this_thread_deferred = suspended_;
}

}  // namespace cassette::storage
