// The network loop of `cassette serve`: accepts CQL native protocol connections on one address
// and serves each with its own ProtocolConnection and Session over one shared Store.
//
// Concurrency: one Asio io_context run by a few network threads, and a pool of request threads.
// Each connection reads its frames and writes its responses on its own strand. Its QUERY,
// PREPARE, EXECUTE and BATCH requests run concurrently on the request threads, each on a fork of
// the connection's protocol state with a Session of its own (a Session is not thread-safe), and
// are answered as they complete, each on its stream id, as Cassandra answers (in protocol v5,
// each answer in a segment of its own); the rest (the handshake, OPTIONS, REGISTER, a USE) runs
// on the strand once the requests before it completed, and holds back those after it. The Store
// serializes writes, and the commits running together share their fsync (group commit): one
// connection with many requests in flight batches as many connections would. A request thread
// does not wait for its commit's fsync: it hands the commit over (storage::DeferredDurability)
// and takes the next request; the answer is queued by the thread whose fsync covered the commit,
// never before.
// Two exceptions run off the pool or off the strand: a lone read (an EXECUTE of a prepared
// SELECT while nothing else of its connection runs or waits unread in its socket, and no request
// runs on the pool) runs on the network thread itself, without the hand-off (at one request in
// flight: about 2.5x the point reads); AUTH_RESPONSE's bcrypt check runs on a request thread,
// not on the network thread that serves other connections too.
// A connection runs and holds answers for at most max_in_flight requests, and for at most about
// max_frame_bytes of them (request bodies running, responses unwritten); then it stops reading
// until they drain: a client that sends faster than it reads is held back by TCP, so a slow
// reader costs at most that.
//
// Shutdown (stop(), or SIGINT/SIGTERM in run()): the listener closes, idle connections close at
// once, and a connection with requests under way closes once they are answered.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/storage/store.h"
#include "engine/util/status.h"
#include "ext/server/frame.h"
#include "ext/server/password_file.h"

namespace cassette::server {

// Network threads: one per core, at least this many. They read, write and hand requests over;
// each thread more is one more to wake for a completion (perf: the hand-offs were the cost).
inline constexpr int kMinWorkerThreads = 2;
// Request threads: four per core, at least this many. No request waits for its fsync on one
// (storage::DeferredDurability: one of them at a time syncs for all); more than the cores are
// for the requests that block otherwise (a write waiting for another process's store lock).
inline constexpr int kRequestThreadsPerCore = 4;
inline constexpr int kMinRequestThreads = 8;

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9042;  // 0: a free port, chosen by the system
  uint32_t max_frame_bytes = kDefaultMaxFrameBytes;
  int max_connections = 1024;  // more are accepted and closed at once
  int threads = 0;             // network threads; 0: one per core, at least kMinWorkerThreads
  // The users let in (PasswordAuthenticator); null: no authentication, and then only a
  // loopback address is listened on unless `insecure`.
  std::shared_ptr<const PasswordFile> passwords;
  bool insecure = false;
  // PEM files; both set: every connection speaks TLS (1.2 or later), and a client that does not
  // is closed after its failed handshake.
  std::string tls_cert;
  std::string tls_key;
  // Requests a connection may have running or answered and not yet written before it stops
  // reading requests (it also stops when they are estimated at max_frame_bytes).
  int max_in_flight = 128;
  int idle_timeout_seconds = 0;  // > 0: a connection that sends no request that long is closed
  // Cassandra's batch_size_fail_threshold (50 KiB by default): a batch over several partitions
  // bigger than this is refused, "Batch too large". 0: no limit.
  int64_t batch_size_fail_threshold = 50 * 1024;
};

// The checks run_server makes before it listens, without listening: an address that does not
// resolve, a non-loopback one without authentication and without `insecure`, a TLS certificate
// or key that cannot be read (the error names the file).
Status check_server_options(const ServerOptions& options);

// Serves `store` until SIGINT or SIGTERM. Calls `on_listening` with "HOST:PORT" once the
// listener accepts connections. Returns an error (naming the address) when it cannot listen, or
// when it would serve a non-loopback address without authentication and without `insecure`.
Status run_server(std::shared_ptr<storage::Store> store, const ServerOptions& options,
                  const std::function<void(const std::string&)>& on_listening);

}  // namespace cassette::server
