#include "engine/cql/tracing.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <limits>
#include <mutex>

#include "engine/types/value.h"

namespace cassette::cql {

namespace {

int64_t wall_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A timeuuid of now no other of this process equals; `*micros` is its time.
std::string unique_timeuuid(int64_t* micros) {
  *micros = types::unique_timeuuid_micros(wall_micros());
  return types::make_timeuuid(*micros, types::process_clock_seq_and_node());
}

// The name Cassandra's events carry for the thread that ran the step; here one per OS thread,
// numbered as they first trace something.
const std::string& thread_name() {
  static std::atomic<int> next{1};
  thread_local const std::string name = fmt::format("Native-Transport-Requests-{}", next++);
  return name;
}

class TraceLog {
 public:
  static TraceLog& instance() {
    static TraceLog* log = new TraceLog();  // never destroyed: server threads trace until exit
    return *log;
  }

  void add(TraceSession session) {
    std::lock_guard lock(mutex_);
    sessions_.push_back(std::move(session));
    if (sessions_.size() > kMaxTraceSessions) sessions_.pop_front();
  }

  template <typename Change>
  void update(const std::string& session_id, Change change) {
    std::lock_guard lock(mutex_);
    // The session is recent: search from the newest.
    for (auto it = sessions_.rbegin(); it != sessions_.rend(); ++it) {
      if (it->session_id == session_id) {
        change(*it);
        return;
      }
    }
  }

  std::vector<TraceSession> live() {
    const int64_t oldest = wall_micros() - kTraceTtlMicros;
    std::lock_guard lock(mutex_);
    while (!sessions_.empty() && sessions_.front().started_at_micros < oldest) {
      sessions_.pop_front();
    }
    return {sessions_.begin(), sessions_.end()};
  }

 private:
  std::mutex mutex_;
  std::deque<TraceSession> sessions_;
};

}  // namespace

Trace Trace::start(TraceSession session) {
  TraceLog& log = TraceLog::instance();
  session.session_id = unique_timeuuid(&session.started_at_micros);
  Trace trace(session.session_id, session.started_at_micros);
  log.add(std::move(session));
  return trace;
}

void Trace::event(std::string_view activity) const {
  TraceLog& log = TraceLog::instance();
  int64_t micros = 0;
  TraceEvent event;
  event.event_id = unique_timeuuid(&micros);
  event.activity = std::string(activity);
  event.source_elapsed = static_cast<int32_t>(
      std::min<int64_t>(micros - started_at_micros_, std::numeric_limits<int32_t>::max()));
  event.thread = thread_name();
  log.update(session_id_, [&](TraceSession& session) {
    if (session.events.size() < kMaxTraceEvents) session.events.push_back(std::move(event));
  });
}

void Trace::finish() const {
  const int64_t elapsed = wall_micros() - started_at_micros_;
  TraceLog::instance().update(session_id_, [&](TraceSession& session) {
    session.duration =
        static_cast<int32_t>(std::clamp<int64_t>(elapsed, 0, std::numeric_limits<int32_t>::max()));
  });
}

std::vector<TraceSession> traced_sessions() {
  return TraceLog::instance().live();
}

}  // namespace cassette::cql
