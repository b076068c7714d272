#include "engine/storage/file_reaper.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

namespace cassette::storage {
namespace {

// Never destroyed: a thread may still run while static destructors do at exit.
struct Reaper {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  uint64_t handed_over = 0;  // removals queued so far
  uint64_t done = 0;         // of them, finished
  // A thread runs while there is work and ends once the queue is empty: removals come a few a
  // flush or compaction, and a process that stops writing keeps no thread for them.
  bool running = false;
  // The process the thread ran in: a forked child has no thread, and its copy of `mutex` may
  // have been taken by the parent's thread, so it never touches the reaper.
  std::atomic<pid_t> owner{0};
  // The directories whose SSTables go to the reaper, with their count of registrations.
  std::mutex dirs_mutex;
  std::map<std::string, int, std::less<>> threaded_dirs;

  void run() {
    std::unique_lock lock(mutex);
    while (!queue.empty()) {
      std::function<void()> removal = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      removal();
      removal = nullptr;
      lock.lock();
      ++done;
      cv.notify_all();
    }
    running = false;
  }
};

Reaper& reaper() {
  static Reaper* r = new Reaper;  // NOLINT: deliberately leaked (see Reaper)
  return *r;
}

bool forked_child(const Reaper& r) {
  pid_t owner = r.owner.load();
  return owner != 0 && owner != ::getpid();
}

}  // namespace

void register_threaded_store(const std::string& data_dir) {
  Reaper& r = reaper();
  std::lock_guard guard(r.dirs_mutex);
  ++r.threaded_dirs[data_dir];
}

void unregister_threaded_store(const std::string& data_dir) {
  Reaper& r = reaper();
  std::lock_guard guard(r.dirs_mutex);
  auto it = r.threaded_dirs.find(data_dir);
  if (it != r.threaded_dirs.end() && --it->second == 0) r.threaded_dirs.erase(it);
}

bool threaded_store(const std::string& data_dir) {
  Reaper& r = reaper();
  std::lock_guard guard(r.dirs_mutex);
  return r.threaded_dirs.contains(data_dir);
}

void reap_later(std::function<void()> removal) {
  if (!forked_child(reaper())) {
    Reaper& r = reaper();
    std::unique_lock lock(r.mutex);
    if (!r.running) {
      try {
        std::thread([&r] { r.run(); }).detach();
        r.running = true;
        r.owner = ::getpid();
      } catch (const std::system_error&) {
        // No thread to be had: the removal runs now, below.
      }
    }
    if (r.running) {
      r.queue.push_back(std::move(removal));
      ++r.handed_over;
      return;
    }
  }
  removal();
}

void drain_file_reaper() {
  Reaper& r = reaper();
  if (forked_child(r)) return;
  std::unique_lock lock(r.mutex);
  const uint64_t target = r.handed_over;
  r.cv.wait(lock, [&] { return r.done >= target; });
}

}  // namespace cassette::storage
