// Query tracing, as Cassandra's system_traces keyspace offers it: a client asks for a request to
// be traced (the native protocol's tracing flag: the Python driver's `trace=True`, the Node.js
// driver's `traceQuery`), the server answers with the trace's session id, and the client reads
// what happened back from two tables:
//
//   SELECT request, duration, parameters FROM system_traces.sessions WHERE session_id = ...;
//   SELECT activity, source_elapsed FROM system_traces.events WHERE session_id = ...;
//
// Cassandra writes traces into those tables on the coordinator, with a day's TTL. Here they are
// kept by the process that ran the request, in memory and bounded (the latest kMaxTraceSessions,
// each for a day), and system_tables.cc generates the two tables from them: a trace is
// diagnostic, not data, so it never enters the store, and the process that traced a request is
// the one its client asks (the server). Other processes see their own traces only.
//
// Thread-safe: a server's worker threads trace requests at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::cql {

inline constexpr size_t kMaxTraceSessions = 1000;
inline constexpr size_t kMaxTraceEvents = 100;  // per session; later events are dropped
inline constexpr int64_t kTraceTtlMicros = 86400LL * 1'000'000;  // Cassandra's: a day

struct TraceEvent {
  std::string event_id;  // a timeuuid (16 bytes), unique in the session
  std::string activity;
  int32_t source_elapsed = 0;  // microseconds since the session started
  std::string thread;
};

struct TraceSession {
  std::string session_id;  // a timeuuid (16 bytes)
  std::string command;     // QUERY, EXECUTE, PREPARE or BATCH (Cassandra's Tracing.TraceType)
  std::string request;     // "Execute CQL3 query", ...
  std::string client;      // the client's address, text form
  std::string coordinator = "127.0.0.1";
  int coordinator_port = 9042;
  std::map<std::string, std::string> parameters;  // query, consistency_level, page_size, ...
  int64_t started_at_micros = 0;
  std::optional<int32_t> duration;  // microseconds; set when the request completes
  std::vector<TraceEvent> events;
};

// One traced request: made when it starts, given events as it runs, finished before its
// response goes out (so a client that reads the trace right after finds it complete).
class Trace {
 public:
  // Starts a session for `session` (its session_id and started_at are filled here); returns it
  // with the id to send the client.
  static Trace start(TraceSession session);

  const std::string& session_id() const { return session_id_; }
  void event(std::string_view activity) const;
  void finish() const;

 private:
  Trace(std::string session_id, int64_t started_at)
      : session_id_(std::move(session_id)), started_at_micros_(started_at) {}
  std::string session_id_;
  int64_t started_at_micros_;
};

// The sessions this process traced that have not expired, oldest first.
std::vector<TraceSession> traced_sessions();

}  // namespace cassette::cql
