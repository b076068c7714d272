#include "ext/server/server.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/cql/session.h"
#include "ext/server/protocol_connection.h"

namespace cassette::server {

namespace {

using asio::ip::tcp;

class Connection;

// The endpoint --listen names, once it is allowed: a non-loopback address needs a password file
// or `insecure`.
Result<tcp::endpoint> resolve_listen_endpoint(asio::io_context& io, const ServerOptions& options) {
  const std::string wanted = fmt::format("{}:{}", options.host, options.port);
  asio::error_code error;
  tcp::resolver resolver(io);
  auto endpoints = resolver.resolve(options.host, std::to_string(options.port), error);
  if (error || endpoints.empty()) {
    return Status::invalid_argument(
        fmt::format("cannot listen on {}: {}", wanted, error ? error.message() : "no address"));
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  if (!options.passwords && !options.insecure && !endpoint.address().is_loopback()) {
    return Status::invalid_argument(fmt::format(
        "refusing to listen on {} without authentication: anyone who reaches it could read "
        "and change the store; give --auth-file FILE (see `cassette passwd`), or --insecure "
        "to serve it anyway",
        wanted));
  }
  return endpoint;
}

// What the connections share: the store, the limits, the count of open connections and the
// list the shutdown walks.
struct ServerState {
  std::shared_ptr<storage::Store> store;
  ServerOptions options;
  std::atomic<int> open_connections{0};
  std::mutex mutex;  // guards connections
  std::list<std::weak_ptr<Connection>> connections;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, std::unique_ptr<cql::Session> session, ServerState& state)
      : socket_(std::move(socket)),
        protocol_(std::move(session), state.options.max_frame_bytes, state.options.passwords),
        state_(state) {
    state_.open_connections.fetch_add(1);
  }
  ~Connection() { state_.open_connections.fetch_sub(1); }

  void start() { read_header(); }

  // Closes the connection now when it waits for a request, or after the response it is
  // writing. Runs on the connection's strand.
  void stop() {
    stopping_ = true;
    if (!writing_) close();
  }

  tcp::socket::executor_type executor() { return socket_.get_executor(); }

 private:
  void read_header() {
    asio::async_read(socket_, asio::buffer(header_bytes_),
                     [self = shared_from_this()](const asio::error_code& error, size_t) {
                       if (!error) self->on_header();
                     });
  }

  void on_header() {
    if (auto refusal = protocol_.check_header(header_bytes_)) {
      write(std::move(*refusal));
      return;
    }
    const FrameHeader header = decode_frame_header(header_bytes_);
    body_.resize(header.body_length);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = shared_from_this(), header](const asio::error_code& error, size_t) {
                       if (!error) self->write(self->protocol_.handle_frame(header, self->body_));
                     });
  }

  void write(Reply reply) {
    body_.clear();
    body_.shrink_to_fit();  // a connection keeps no large body between requests
    out_ = std::move(reply.bytes);
    const bool close_after = reply.close;
    writing_ = true;
    asio::async_write(
        socket_, asio::buffer(out_),
        [self = shared_from_this(), close_after](const asio::error_code& error, size_t) {
          self->writing_ = false;
          self->out_.clear();
          self->out_.shrink_to_fit();
          if (error || close_after || self->stopping_) {
            self->close();
          } else {
            self->read_header();
          }
        });
  }

  void close() {
    asio::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;  // its executor is the connection's own strand
  ProtocolConnection protocol_;
  ServerState& state_;
  std::array<uint8_t, kFrameHeaderSize> header_bytes_{};
  std::string body_;
  std::string out_;
  bool writing_ = false;
  bool stopping_ = false;
};

class Listener {
 public:
  // The acceptor and the signal handler share one strand: stop() closes the acceptor while an
  // accept may be completing on another worker.
  Listener(asio::io_context& io, ServerState& state)
      : io_(io),
        strand_(asio::make_strand(io)),
        acceptor_(strand_),
        signals_(strand_, SIGINT, SIGTERM),
        state_(state) {}

  // Binds and listens; the address actually listened on ("HOST:PORT").
  Result<std::string> listen() {
    const std::string wanted = fmt::format("{}:{}", state_.options.host, state_.options.port);
    CASSETTE_ASSIGN_OR_RETURN(const tcp::endpoint endpoint,
                              resolve_listen_endpoint(io_, state_.options));
    asio::error_code error;
    acceptor_.open(endpoint.protocol(), error);
    if (!error) acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
    if (error) {
      return Status::io_error(fmt::format("cannot listen on {}: {}", wanted, error.message()));
    }
    const tcp::endpoint local = acceptor_.local_endpoint(error);
    const std::string host = local.address().to_string();
    return local.address().is_v6() ? fmt::format("[{}]:{}", host, local.port())
                                   : fmt::format("{}:{}", host, local.port());
  }

  void start() {
    signals_.async_wait([this](const asio::error_code& error, int) {
      if (!error) stop();
    });
    accept();
  }

 private:
  void accept() {
    acceptor_.async_accept(asio::make_strand(io_),
                           [this](const asio::error_code& error, tcp::socket socket) {
                             if (error == asio::error::operation_aborted) return;
                             if (!error) serve(std::move(socket));
                             accept();
                           });
  }

  void serve(tcp::socket socket) {
    if (state_.open_connections.load() >= state_.options.max_connections) return;  // closes it
    auto session = cql::Session::open(state_.store);
    if (!session.is_ok()) return;
    // system.local names the address and port this connection reached (drivers read it).
    asio::error_code error;
    const tcp::endpoint local = socket.local_endpoint(error);
    if (!error) {
      cql::NodeInfo node;
      node.address = local.address().to_string();
      node.port = local.port();
      (*session)->set_node_info(std::move(node));
    }
    auto connection = std::make_shared<Connection>(std::move(socket), std::move(*session), state_);
    {
      std::lock_guard lock(state_.mutex);
      std::erase_if(state_.connections, [](const auto& c) { return c.expired(); });
      state_.connections.push_back(connection);
    }
    asio::post(connection->executor(), [connection] { connection->start(); });
  }

  // Runs on the listener's strand (the signal handler): no new connections, the open ones close.
  void stop() {
    asio::error_code ignored;
    acceptor_.close(ignored);
    std::lock_guard lock(state_.mutex);
    for (const auto& weak : state_.connections) {
      if (auto connection = weak.lock()) {
        asio::post(connection->executor(), [connection] { connection->stop(); });
      }
    }
  }

  asio::io_context& io_;
  asio::strand<asio::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  asio::signal_set signals_;
  ServerState& state_;
};

void run_worker(asio::io_context& io) {
  for (;;) {
    try {
      io.run();
      return;
    } catch (const std::exception& e) {
      // A handler that throws loses its connection, not the server.
      std::fprintf(stderr, "cassette serve: %s\n", e.what());
    }
  }
}

}  // namespace

Status check_listen_address(const ServerOptions& options) {
  asio::io_context io;
  return resolve_listen_endpoint(io, options).status();
}

Status run_server(std::shared_ptr<storage::Store> store, const ServerOptions& options,
                  const std::function<void(const std::string&)>& on_listening) {
  ServerState state;
  state.store = std::move(store);
  state.options = options;
  asio::io_context io;
  Listener listener(io, state);
  CASSETTE_ASSIGN_OR_RETURN(std::string address, listener.listen());
  listener.start();
  on_listening(address);

  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i) workers.emplace_back([&io] { run_worker(io); });
  run_worker(io);
  for (std::thread& worker : workers) worker.join();
  return Status::ok();
}

}  // namespace cassette::server
