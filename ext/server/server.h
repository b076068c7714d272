// The network loop of `cassette serve`: accepts CQL native protocol connections on one address
// and serves each with its own ProtocolConnection and Session over one shared Store.
//
// Concurrency: one Asio io_context run by a few worker threads. Each connection runs on its own
// strand, so its requests are read, executed and answered one at a time in order of arrival
// (the Session is not thread-safe, and the protocol only asks that a response carry its
// request's stream id); different connections run in parallel on the workers, and the Store
// serializes their writes. A connection reads its next frame only after the previous response
// was written: a client that sends faster than it reads is held back by TCP, so a slow reader
// costs no memory beyond one request and one response.
//
// Shutdown (stop(), or SIGINT/SIGTERM in run()): the listener closes, idle connections close at
// once, and a connection in the middle of a request closes after its response is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/storage/store.h"
#include "engine/util/status.h"
#include "ext/server/frame.h"

namespace cassette::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9042;  // 0: a free port, chosen by the system
  uint32_t max_frame_bytes = kDefaultMaxFrameBytes;
  int max_connections = 1024;  // more are accepted and closed at once
  int threads = 0;             // 0: as many as the machine has cores (at least 2)
};

// Serves `store` until SIGINT or SIGTERM. Calls `on_listening` with "HOST:PORT" once the
// listener accepts connections. Returns an error (naming the address) when it cannot listen.
Status run_server(std::shared_ptr<storage::Store> store, const ServerOptions& options,
                  const std::function<void(const std::string&)>& on_listening);

}  // namespace cassette::server
