#include "ext/server/server.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine/cql/session.h"
#include "engine/schema/catalog.h"
#include "engine/storage/durability.h"
#include "ext/server/protocol_connection.h"
#include "ext/server/schema_events.h"

namespace cassette::server {

namespace {

using asio::ip::tcp;

// How often the store's schema version is read for changes to announce: the longest a
// registered driver waits for an event after a change (drivers wait about a second more before
// they refresh their metadata: they collect events in that window).
constexpr auto kSchemaPollInterval = std::chrono::milliseconds(100);

// What the server asks of a connection, whatever its transport.
class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  // Reads no more requests and closes the connection once the frames it has to write are
  // written (a request being read is not handled). Runs on the connection's strand.
  virtual void stop() = 0;
  // Adds `changes` to the events this connection has to send (when its client registered for
  // schema changes). Any thread: they are queued on the connection's strand soon, and before
  // the reply of any request that completes after this call.
  virtual void announce(const std::vector<SchemaChange>& changes) = 0;
  virtual asio::any_io_executor executor() = 0;
};

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
  std::list<std::weak_ptr<ConnectionBase>> connections;
  std::unique_ptr<asio::ssl::context> tls;  // null: plain TCP
  // The schema last announced to registered connections (guarded by schema_mutex), and the
  // catalog that reads the store's current one.
  std::shared_ptr<schema::Catalog> catalog;
  std::mutex schema_mutex;
  std::shared_ptr<const schema::Schema> announced_schema;
  // The prepared statements every connection executes.
  std::shared_ptr<PreparedCache> prepared = std::make_shared<PreparedCache>();
  // Where connections run their requests concurrently (Connection::run_concurrently).
  std::unique_ptr<asio::thread_pool> requests;
  // The open connections, as system_views.clients lists them.
  ClientRegistry clients;
  // Requests handed to `requests` and not yet run to their answer.
  std::atomic<int> pooled{0};
};

// Tells the connections registered for SCHEMA_CHANGE what changed in the store's schema since
// the last announcement: after every schema change made through this server (by the connection
// that made it, before it queues the statement's reply: so the events reach every connection
// ahead of anything it answers after), and by the listener's poll for other processes' changes.
void announce_schema_changes(ServerState& state) {
  std::lock_guard schema_lock(state.schema_mutex);
  auto current = state.catalog->current();
  if (!current.is_ok() || *current == state.announced_schema) return;
  std::vector<SchemaChange> changes = schema_changes_between(*state.announced_schema, **current);
  state.announced_schema = *current;
  if (changes.empty()) return;
  std::lock_guard lock(state.mutex);
  for (const auto& weak : state.connections) {
    if (auto connection = weak.lock()) connection->announce(changes);
  }
}

// The socket under a connection's stream: the stream itself for plain TCP, the TCP socket under
// TLS.
tcp::socket& tcp_socket(tcp::socket& stream) {
  return stream;
}
tcp::socket& tcp_socket(asio::ssl::stream<tcp::socket>& stream) {
  return stream.next_layer();
}

// One client connection over a plain TCP socket or a TLS stream (Stream).
//
// Frames (v4) and segments (v5) are read on the connection's strand; their QUERY, PREPARE,
// EXECUTE and BATCH requests run on the server's request threads (run_concurrently), the rest on
// the strand once the running requests completed (resume). Responses, and the events the server
// pushes, wait in a queue of frames, written as they come, several in one write. Reading goes on
// while fewer than max_in_flight requests run or wait to be written, and they are estimated under
// max_frame_bytes (has_room); it stops until they drain when a limit is reached: a client that
// sends without reading is held back by TCP, and a connection holds at most max_in_flight responses
// and about max_frame_bytes plus one response of memory (and kMaxQueuedEvents events).
template <typename Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Stream stream, std::unique_ptr<cql::Session> session, ServerState& state)
      : stream_(std::move(stream)),
        protocol_(std::move(session), state.options.max_frame_bytes, state.options.passwords,
                  state.prepared),
        state_(state),
        idle_timer_(stream_.get_executor()) {
    state_.open_connections.fetch_add(1);
    asio::error_code error;
    const tcp::endpoint remote = stream_.lowest_layer().remote_endpoint(error);
    if (!error) protocol_.set_client_address(remote.address().to_string());
    client_ = std::make_shared<ClientRecord>(error ? "0.0.0.0" : remote.address().to_string(),
                                             error ? 0 : remote.port(),
                                             state_.options.passwords != nullptr);
    protocol_.set_client_record(client_);
    client_handle_ = state_.clients.add(client_);
  }
  ~Connection() override {
    state_.clients.remove(client_handle_);
    state_.open_connections.fetch_sub(1);
  }

  void start() {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      read_header();
    } else {
      // A client that does not speak TLS fails the handshake: it is closed, nothing else.
      arm_idle_timer();
      reading_ = true;  // the handshake reads the socket
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](const asio::error_code& error) {
                                if (error) return self->close();
                                if (self->read_ends_here()) return;
                                self->note_tls();
                                self->read_header();
                              });
    }
  }

  void stop() override {
    stopping_ = true;
    if (may_linger()) linger();  // else once the running requests are answered
  }

  void announce(const std::vector<SchemaChange>& changes) override {
    {
      std::lock_guard lock(announced_mutex_);
      if (announced_.size() + changes.size() > kMaxQueuedEvents) {
        announced_overflow_ = true;  // it does not read: it is let go (send_events)
      } else {
        announced_.insert(announced_.end(), changes.begin(), changes.end());
      }
    }
    asio::post(executor(), [self = this->shared_from_this()] { self->send_events(); });
  }

  asio::any_io_executor executor() override { return stream_.get_executor(); }

 private:
  // What system_views.clients shows of the TLS the handshake agreed.
  void note_tls() {
    if constexpr (!std::is_same_v<Stream, tcp::socket>) {
      SSL* ssl = stream_.native_handle();
      const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
      client_->set_tls(SSL_get_version(ssl), cipher != nullptr ? SSL_CIPHER_get_name(cipher) : "");
    }
  }

  struct Outgoing {
    std::string bytes;
    bool is_response;  // counts against max_in_flight (events do not)
    bool close_after;
  };

  void read_header() {
    if (closed_ || stopping_) return;
    reading_ = true;
    arm_idle_timer();
    if (protocol_.uses_segments()) return read_segment_header();
    asio::async_read(stream_, asio::buffer(header_bytes_),
                     [self = this->shared_from_this()](const asio::error_code& error, size_t) {
                       if (error) return self->close();
                       if (self->read_ends_here()) return;
                       self->on_header();
                     });
  }

  void on_header() {
    if (auto refusal = protocol_.check_header(header_bytes_)) {
      reading_ = false;
      return respond(std::move(*refusal));
    }
    const FrameHeader header = decode_frame_header(header_bytes_);
    body_.resize(header.body_length);
    asio::async_read(
        stream_, asio::buffer(body_),
        [self = this->shared_from_this(), header](const asio::error_code& error, size_t) {
          if (error) return self->close();
          if (self->read_ends_here()) return;
          self->reading_ = false;
          self->disarm_idle_timer();
          self->on_frame(header, std::move(self->body_));
          self->body_ = std::string();  // no large body kept between requests
        });
  }

  // A whole frame read: it joins the requests read and not yet started.
  void on_frame(const FrameHeader& header, std::string body) {
    backlog_.push_back(SegmentRequest{header, std::move(body), {}});
    paused_ = true;
    resume();
  }

  // Starts the requests read in their order: each that may run concurrently on a fork while
  // there is room for it, the others here once the requests before them completed (and those
  // after one wait for it). Then reads on while there is room.
  void resume() {
    if (checking_password_) return;  // its completion resumes
    while (!backlog_.empty() && !closed_) {
      SegmentRequest& next = backlog_.front();
      const bool concurrent = !next.refusal && protocol_.runs_concurrently(next.header, next.body);
      if (concurrent ? !has_capacity() : executing_ > 0) break;  // a completion resumes
      SegmentRequest request = std::move(next);
      backlog_.pop_front();
      if (concurrent) {
        run_concurrently(request.header, std::move(request.body));
        continue;
      }
      if (!request.refusal &&
          request.header.opcode == static_cast<uint8_t>(Opcode::kAuthResponse)) {
        return check_password(std::move(request));
      }
      Reply reply = request.refusal ? std::move(*request.refusal)
                                    : protocol_.handle_frame(request.header, request.body);
      if (segmented_ && !reply.bytes.empty()) reply.bytes = protocol_.as_segments(reply.bytes);
      if (!queue_reply(std::move(reply))) {
        backlog_.clear();  // the connection closes: the requests after it are not answered
        return;
      }
    }
    if (paused_ && has_room()) {
      paused_ = false;
      read_header();
    }
  }

  // AUTH_RESPONSE: bcrypt takes tens of milliseconds by design, so the connection's own
  // protocol state checks the password on a request thread, not on the network thread that
  // serves other connections too. Meanwhile the strand neither reads from the client nor
  // touches protocol_ (nothing else runs on a connection that is authenticating), and the
  // request counts as executing (a stop waits for its answer).
  void check_password(SegmentRequest request) {
    checking_password_ = true;
    ++executing_;
    asio::any_io_executor strand =
        asio::prefer(executor(), asio::execution::outstanding_work.tracked);
    asio::post(*state_.requests, [self = this->shared_from_this(), request = std::move(request),
                                  strand = std::move(strand)]() mutable {
      auto reply =
          std::make_shared<Reply>(self->protocol_.handle_frame(request.header, request.body));
      asio::post(strand, [self = std::move(self), reply] {
        self->checking_password_ = false;
        --self->executing_;
        if (self->segmented_ && !reply->bytes.empty()) {
          reply->bytes = self->protocol_.as_segments(reply->bytes);
        }
        if (!self->queue_reply(std::move(*reply))) {
          self->backlog_.clear();
          return;
        }
        self->resume();
        if (self->stopping_ && self->may_linger()) self->linger();
      });
    });
  }

  // Runs a request on a fork of the protocol connection on the server's workers; its reply is
  // queued when it completes, in whatever order the requests complete (each carries its stream
  // id). A request that committed is answered once a sync covers its commits: it does not wait
  // for that on its thread, which hands the commits over (storage::DeferredDurability) and is
  // free at once; the thread whose sync covers them queues the answer.
  void run_concurrently(const FrameHeader& header, std::string body) {
    std::unique_ptr<ProtocolConnection> fork = take_fork();
    if (!fork) {
      Reply reply = protocol_.handle_frame(header, body);
      if (segmented_ && !reply.bytes.empty()) reply.bytes = protocol_.as_segments(reply.bytes);
      if (!queue_reply(std::move(reply))) backlog_.clear();
      return;
    }
    protocol_.lend_keyspace(*fork);
    ++executing_;
    unwritten_bytes_ += body.size();  // the request's memory counts until it is answered
    const size_t body_size = body.size();
    // The strand, counted as work of the io_context while the request runs: the network
    // threads stay until its answer is written, even as the server stops.
    asio::any_io_executor strand =
        asio::prefer(executor(), asio::execution::outstanding_work.tracked);
    // A lone read (nothing else of this connection running, waiting or unread in its socket:
    // executing_ counts this one; no request on the pool): here, without waking a request thread
    // for it (a read never waits for the store's write lock; a write might, and would hold up this
    // network thread's other connections).
    const bool here = executing_ == 1 && backlog_.empty() && nothing_more_to_read() &&
                      state_.pooled.load(std::memory_order_relaxed) == 0 &&
                      protocol_.is_prepared_read(header, body);
    auto run = [self = this->shared_from_this(), fork = std::move(fork), header,
                body = std::move(body), body_size, strand = std::move(strand)]() mutable {
      storage::DeferredDurability deferred;
      auto answer = std::make_shared<Answer>();
      answer->reply = fork->handle_frame(header, body);
      answer->fork = std::move(fork);
      body = std::string();
      deferred.when_durable([self = std::move(self), answer, header, body_size,
                             strand = std::move(strand)](const Status& synced) {
        if (!synced.is_ok()) answer->reply = answer->fork->error_for(header, synced);
        asio::post(strand, [self, answer, body_size] {
          self->on_completed(std::move(answer->fork), std::move(answer->reply), body_size);
        });
      });
    };
    if (here) return run();
    state_.pooled.fetch_add(1, std::memory_order_relaxed);
    asio::post(*state_.requests, [run = std::move(run), &pooled = state_.pooled]() mutable {
      run();
      pooled.fetch_sub(1, std::memory_order_relaxed);
    });
  }

  void on_completed(std::unique_ptr<ProtocolConnection> fork, Reply reply, size_t body_size) {
    --executing_;
    unwritten_bytes_ -= body_size;
    protocol_.take_keyspace(*fork);  // a prepared USE
    forks_.push_back(std::move(fork));
    if (segmented_ && !reply.bytes.empty()) reply.bytes = protocol_.as_segments(reply.bytes);
    if (!queue_reply(std::move(reply))) {
      backlog_.clear();
      return;
    }
    resume();
    if (stopping_ && may_linger()) linger();
  }

  // Whether the client has sent nothing more yet (plain TCP: the socket holds no byte; under
  // TLS the stream may hold decrypted bytes: never sure).
  bool nothing_more_to_read() {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      asio::error_code error;
      return stream_.available(error) == 0 && !error;
    } else {
      return false;
    }
  }

  // A protocol connection for one concurrent request: an idle one of this connection's, or a
  // new one over its own Session (nullptr when no Session opens: the request runs here).
  std::unique_ptr<ProtocolConnection> take_fork() {
    if (!forks_.empty()) {
      std::unique_ptr<ProtocolConnection> fork = std::move(forks_.back());
      forks_.pop_back();
      return fork;
    }
    auto session = cql::Session::open(state_.store);
    if (!session.is_ok()) return nullptr;
    return protocol_.fork(std::move(*session));
  }

  // Protocol v5 after STARTUP: a segment's header, then its payload and CRC32.
  void read_segment_header() {
    const size_t size = protocol_.segment_header_size();
    asio::async_read(
        stream_, asio::buffer(header_bytes_.data(), size),
        [self = this->shared_from_this(), size](const asio::error_code& error, size_t) {
          if (error) return self->close();
          if (self->read_ends_here()) return;
          self->on_segment_header(size);
        });
  }

  void on_segment_header(size_t size) {
    size_t payload_bytes = 0;
    if (auto refusal = protocol_.check_segment_header(
            std::span<const uint8_t>(header_bytes_.data(), size), &payload_bytes)) {
      reading_ = false;
      return respond(std::move(*refusal));
    }
    body_.resize(payload_bytes);
    asio::async_read(stream_, asio::buffer(body_),
                     [self = this->shared_from_this()](const asio::error_code& error, size_t) {
                       if (error) return self->close();
                       if (self->read_ends_here()) return;
                       self->reading_ = false;
                       self->disarm_idle_timer();
                       self->segmented_ = true;
                       for (SegmentRequest& request : self->protocol_.read_segment(self->body_)) {
                         self->backlog_.push_back(std::move(request));
                       }
                       self->body_.clear();
                       self->body_.shrink_to_fit();
                       self->paused_ = true;
                       self->resume();
                     });
  }

  // Queues the refusal of a header read, then reads the next request while there is room.
  void respond(Reply reply) {
    if (!queue_reply(std::move(reply))) return;
    paused_ = true;
    resume();
  }

  // Queues a reply (after the events of a schema change it made); false when the connection
  // closes after it, or has closed.
  bool queue_reply(Reply reply) {
    if (reply.schema_changed) announce_schema_changes(state_);
    send_events();  // those announced so far go first
    const bool close_after = reply.close;
    if (reply.bytes.empty()) {
      if (close_after) close();
    } else {
      ++in_flight_;
      unwritten_bytes_ += reply.bytes.size();
      largest_response_ = std::max(largest_response_, reply.bytes.size());
      queue(Outgoing{std::move(reply.bytes), true, close_after});
    }
    if (close_after) stopping_ = true;  // no more requests are read
    return !close_after && !closed_;
  }

  // Whether everything the connection owes its client is written: it may close.
  bool may_linger() const {
    return !writing_ && pending_.empty() && executing_ == 0 && backlog_.empty();
  }

  // Queues an EVENT for each change announced to this connection since the last call, when
  // its client registered for schema changes.
  void send_events() {
    std::vector<SchemaChange> changes;
    bool overflow = false;
    {
      std::lock_guard lock(announced_mutex_);
      changes.swap(announced_);
      overflow = announced_overflow_;
    }
    if (closed_ || !protocol_.wants_schema_events()) return;
    if (overflow || queued_events_ + changes.size() > kMaxQueuedEvents) return close();
    for (const SchemaChange& change : changes) {
      ++queued_events_;
      queue(Outgoing{protocol_.schema_change_event(change), false, false});
    }
  }

  // Whether another request may start: fewer than max_in_flight requests running or answered
  // and not yet written; fewer than max_frame_bytes of them, counting the running requests'
  // bodies and, for each, twice the largest answer this connection has had (the result and its
  // encoding are both in memory while it runs; so a client that reads large results slowly gets
  // fewer of them running at once).
  bool has_capacity() const {
    return in_flight_ + executing_ < state_.options.max_in_flight &&
           unwritten_bytes_ + static_cast<size_t>(executing_) * 2 * largest_response_ <
               state_.options.max_frame_bytes;
  }
  // Whether another request may be read: capacity, and every request read has started (a v5
  // segment holds many).
  bool has_room() const { return has_capacity() && backlog_.empty(); }

  void queue(Outgoing frame) {
    pending_.push_back(std::move(frame));
    if (!writing_) write_next();
  }

  // Writes the frames waiting, up to kMaxFramesPerWrite of them in one write: answers that
  // complete while one is written go out together.
  void write_next() {
    if (closed_ || pending_.empty()) return;
    writing_ = true;
    writing_frames_ = std::min(pending_.size(), kMaxFramesPerWrite);
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(writing_frames_);
    for (size_t i = 0; i < writing_frames_; ++i) buffers.push_back(asio::buffer(pending_[i].bytes));
    asio::async_write(stream_, buffers,
                      [self = this->shared_from_this()](const asio::error_code& error, size_t) {
                        self->on_written(error);
                      });
  }

  void on_written(const asio::error_code& error) {
    writing_ = false;
    bool close_after = false;
    for (size_t i = 0; i < writing_frames_; ++i) {
      const Outgoing done = std::move(pending_.front());
      pending_.pop_front();
      close_after = close_after || done.close_after;
      if (done.is_response) {
        --in_flight_;
        unwritten_bytes_ -= done.bytes.size();
      } else {
        --queued_events_;
      }
    }
    writing_frames_ = 0;
    if (error) return close();
    if (close_after) return linger();
    if (!pending_.empty()) write_next();
    resume();  // (what it queues waits for the write under way)
    if (stopping_ && may_linger()) linger();
  }

  // Whether a read that just completed is the last: once the connection stops, what it read is
  // not handled (only discarded while it lingers).
  bool read_ends_here() {
    if (!stopping_) return false;
    reading_ = false;
    if (lingering_) discard_input();
    return true;
  }

  // Closes gracefully once everything queued is written: FIN after the last frame, then what
  // the client still sends is read and thrown away until it closes too, or for kLingerTime.
  // Closing at once with unread requests in the socket would send a reset instead, and a reset
  // discards the responses still in the kernel's send buffer: the client would lose answers to
  // requests the store has applied.
  void linger() {
    if (closed_ || lingering_) return;
    stopping_ = lingering_ = true;
    asio::error_code ignored;
    tcp_socket(stream_).shutdown(tcp::socket::shutdown_send, ignored);
    idle_timer_.expires_after(kLingerTime);
    idle_timer_.async_wait([self = this->shared_from_this()](const asio::error_code& error) {
      if (!error) self->close();
    });
    if (!reading_) discard_input();  // else the read under way discards when it completes
  }

  void discard_input() {
    reading_ = true;
    tcp_socket(stream_).async_read_some(
        asio::buffer(discarded_),
        [self = this->shared_from_this()](const asio::error_code& error, size_t) {
          self->reading_ = false;
          if (error || self->closed_) return self->close();
          self->discard_input();
        });
  }

  // With an idle timeout, a connection that sends no complete request for that long is closed.
  void arm_idle_timer() {
    if (state_.options.idle_timeout_seconds <= 0) return;
    idle_timer_.expires_after(std::chrono::seconds(state_.options.idle_timeout_seconds));
    idle_timer_.async_wait([self = this->shared_from_this()](const asio::error_code& error) {
      // A wait that expired as a request arrived completes without an error: the expiry,
      // pushed to the end of time by disarm_idle_timer, tells.
      if (error || self->idle_timer_.expiry() > std::chrono::steady_clock::now()) return;
      // A connection waiting for its running requests is not idle: it waits again.
      if (self->executing_ > 0) return self->arm_idle_timer();
      self->close();
    });
  }

  void disarm_idle_timer() { idle_timer_.expires_at(asio::steady_timer::time_point::max()); }

  void close() {
    if (closed_) return;
    closed_ = true;
    asio::error_code ignored;
    idle_timer_.cancel();
    tcp_socket(stream_).shutdown(tcp::socket::shutdown_both, ignored);
    tcp_socket(stream_).close(ignored);
  }

  static constexpr size_t kMaxQueuedEvents = 1024;
  static constexpr size_t kMaxFramesPerWrite = 64;
  static constexpr auto kLingerTime = std::chrono::seconds(1);

  Stream stream_;  // its executor is the connection's own strand
  ProtocolConnection protocol_;
  bool checking_password_ = false;  // an AUTH_RESPONSE runs on a request thread (check_password)
  std::shared_ptr<ClientRecord> client_;
  ClientRegistry::Handle client_handle_;
  ServerState& state_;
  asio::steady_timer idle_timer_;
  std::array<uint8_t, kFrameHeaderSize> header_bytes_{};
  std::string body_;
  std::array<char, 4096> discarded_{};  // what a lingering connection reads
  std::deque<Outgoing> pending_;        // frames to write, those being written first
  size_t writing_frames_ = 0;           // how many of them are being written
  int in_flight_ = 0;                   // responses in pending_
  size_t unwritten_bytes_ = 0;          // their size, and that of the running requests
  int executing_ = 0;                   // requests running on forks (run_concurrently)
  size_t largest_response_ = 0;         // the largest response queued so far
  std::vector<std::unique_ptr<ProtocolConnection>> forks_;  // idle forks
  // A request's answer, from the request thread to the connection's strand.
  struct Answer {
    std::unique_ptr<ProtocolConnection> fork;
    Reply reply;
  };
  // Requests read and not started: the rest of a v5 segment, or a request waiting for the
  // running ones to complete (and those after it).
  std::deque<SegmentRequest> backlog_;
  bool segmented_ = false;               // requests come in v5 segments: so do the answers
  bool paused_ = false;                  // reading stopped until responses drain
  size_t queued_events_ = 0;             // events in pending_
  std::mutex announced_mutex_;           // guards announced_ and announced_overflow_
  std::vector<SchemaChange> announced_;  // events announced, not yet queued (announce)
  bool announced_overflow_ = false;
  bool reading_ = false;  // a request is being read
  bool writing_ = false;
  bool stopping_ = false;   // no more requests are handled
  bool lingering_ = false;  // closing gracefully (linger)
  bool closed_ = false;
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
        schema_timer_(strand_),
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
    watch_schema();
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
    // A peer that vanishes without a FIN (a network partition) is found by TCP's keepalive.
    socket.set_option(asio::socket_base::keep_alive(true), error);
    if (state_.tls) {
      using TlsStream = asio::ssl::stream<tcp::socket>;
      start(std::make_shared<Connection<TlsStream>>(TlsStream(std::move(socket), *state_.tls),
                                                    std::move(*session), state_));
    } else {
      start(std::make_shared<Connection<tcp::socket>>(std::move(socket), std::move(*session),
                                                      state_));
    }
  }

  template <typename Stream>
  void start(std::shared_ptr<Connection<Stream>> connection) {
    {
      std::lock_guard lock(state_.mutex);
      std::erase_if(state_.connections, [](const auto& c) { return c.expired(); });
      state_.connections.push_back(connection);
    }
    asio::post(connection->executor(), [connection] { connection->start(); });
  }

  // Schema changes reach registered connections as events. Those made through this server are
  // announced by the connection that made them, at once (Connection::queue_reply). Another
  // process's change is seen only by reading the store's schema version: it is read every
  // kSchemaPollInterval while connections are open (one small read; the full schema is reloaded
  // and compared only when the version moved).
  void watch_schema() {
    schema_timer_.expires_after(kSchemaPollInterval);
    schema_timer_.async_wait([this](const asio::error_code& error) {
      // stop() cancels the timer, but a wait that had already expired completes without an
      // error: the flag stops it then (else the io_context would never run out of work).
      if (error || stopped_) return;
      if (state_.open_connections.load() > 0) announce_schema_changes(state_);
      watch_schema();
    });
  }

  // Runs on the listener's strand (the signal handler): no new connections, the open ones close.
  void stop() {
    stopped_ = true;
    asio::error_code ignored;
    acceptor_.close(ignored);
    schema_timer_.cancel();
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
  asio::steady_timer schema_timer_;
  ServerState& state_;
  bool stopped_ = false;  // on strand_
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

// The TLS context of --tls-cert and --tls-key: TLS 1.2 or later. Null without them.
Result<std::unique_ptr<asio::ssl::context>> make_tls_context(const ServerOptions& options) {
  if (options.tls_cert.empty() && options.tls_key.empty()) {
    return std::unique_ptr<asio::ssl::context>();
  }
  if (options.tls_cert.empty() || options.tls_key.empty()) {
    return Status::invalid_argument("--tls-cert and --tls-key go together");
  }
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  asio::error_code error;
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                           asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                           asio::ssl::context::no_tlsv1_1,
                       error);
  context->use_certificate_chain_file(options.tls_cert, error);
  if (error) {
    return Status::invalid_argument(
        fmt::format("--tls-cert {}: {}", options.tls_cert, error.message()));
  }
  context->use_private_key_file(options.tls_key, asio::ssl::context::pem, error);
  if (error) {
    return Status::invalid_argument(
        fmt::format("--tls-key {}: {}", options.tls_key, error.message()));
  }
  return context;
}

}  // namespace

// system_views.settings: this server's settings under cassandra.yaml's names.
// `address`: HOST:PORT listened on (the port chosen when options.port is 0).
std::vector<std::pair<std::string, std::string>> host_settings(const ServerOptions& options,
                                                               const std::string& address) {
  auto mebibytes = [](uint32_t bytes) {
    return bytes % (1 << 20) == 0 ? fmt::format("{}MiB", bytes >> 20) : fmt::format("{}B", bytes);
  };
  return {
      {"rpc_address", options.host},
      {"native_transport_port", address.substr(address.rfind(':') + 1)},
      {"native_transport_max_frame_size", mebibytes(options.max_frame_bytes)},
      {"native_transport_max_concurrent_connections", std::to_string(options.max_connections)},
      {"native_transport_idle_timeout", fmt::format("{}ms", options.idle_timeout_seconds * 1000)},
      {"authenticator", options.passwords ? "PasswordAuthenticator" : "AllowAllAuthenticator"},
      {"client_encryption_options_enabled", options.tls_cert.empty() ? "false" : "true"},
  };
}

Status check_server_options(const ServerOptions& options) {
  asio::io_context io;
  CASSETTE_RETURN_IF_ERROR(resolve_listen_endpoint(io, options).status());
  return make_tls_context(options).status();
}

Status run_server(std::shared_ptr<storage::Store> store, const ServerOptions& options,
                  const std::function<void(const std::string&)>& on_listening) {
  ServerState state;
  state.store = std::move(store);
  state.options = options;
  CASSETTE_ASSIGN_OR_RETURN(state.tls, make_tls_context(options));
  // The catalog every session of the store shares: it lives as long as the server, so that the
  // ANN builder thread (engine/cql/ann_index.cc) asks it for the latest schema.
  CASSETTE_ASSIGN_OR_RETURN(state.catalog, cql::catalog_for(state.store));
  CASSETTE_ASSIGN_OR_RETURN(state.announced_schema, state.catalog->current());
#ifdef __GLIBC__
  // Requests run on many threads, and glibc's malloc gives threads arenas of their own that keep
  // what is freed in them: the large buffers of large results would pile up there, many times
  // what the limits let a connection hold. Buffers from 256 KiB go to the system and back.
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
  // What system_views shows of this server (cql/system_views.h), and the batch limit it
  // applies; cleared as it returns.
  cql::set_connected_clients_source([&state] { return state.clients.rows(); });
  cql::set_batch_size_fail_threshold(options.batch_size_fail_threshold);
  struct ClearHostViews {
    ~ClearHostViews() {
      cql::set_connected_clients_source(nullptr);
      cql::set_host_settings({});
      cql::set_batch_size_fail_threshold(0);
    }
  } clear_host_views;
  asio::io_context io;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  state.requests = std::make_unique<asio::thread_pool>(
      std::max(kMinRequestThreads, kRequestThreadsPerCore * cores));
  Listener listener(io, state);
  CASSETTE_ASSIGN_OR_RETURN(std::string address, listener.listen());
  cql::set_host_settings(host_settings(options, address));
  listener.start();
  on_listening(address);

  // The network threads: connections' frames are read and written here, their requests run on
  // state.requests.
  const int threads = options.threads > 0 ? options.threads : std::max(kMinWorkerThreads, cores);
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i) workers.emplace_back([&io] { run_worker(io); });
  run_worker(io);
  for (std::thread& worker : workers) worker.join();
  state.requests->join();  // every connection is closed: no request runs
  return Status::ok();
}

}  // namespace cassette::server
