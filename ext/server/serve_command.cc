#include "ext/server/serve_command.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <limits>

#include "engine/storage/store.h"

namespace cassette::server {

namespace {

template <typename T>
Result<T> parse_number(std::string_view option, std::string_view text, T min, T max) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return Status::invalid_argument(
        fmt::format("{} needs a number from {} to {}, not '{}'", option, min, max, text));
  }
  return value;
}

// Applies one "--option value"; `value` is empty for options without one.
Status apply_option(std::string_view name, std::string_view value, ServeOptions* options) {
  ServerOptions& server = options->server;
  if (name == "--listen") return parse_listen_address(value, &server);
  if (name == "--max-frame-size") {
    // Up to 256 MiB, the protocol's own limit (native_protocol_v4.spec §2.5).
    CASSETTE_ASSIGN_OR_RETURN(server.max_frame_bytes,
                              parse_number<uint32_t>(name, value, 1024, uint32_t{256} << 20));
    return Status::ok();
  }
  if (name == "--auth-file") {
    auto passwords = PasswordFile::load(std::string(value));
    if (!passwords.is_ok()) {
      return Status::invalid_argument(fmt::format("--auth-file: {}", passwords.status().message()));
    }
    server.passwords = std::make_shared<const PasswordFile>(std::move(*passwords));
    return Status::ok();
  }
  if (name == "--tls-cert") {
    server.tls_cert = std::string(value);
    return Status::ok();
  }
  if (name == "--tls-key") {
    server.tls_key = std::string(value);
    return Status::ok();
  }
  if (name == "--max-in-flight") {
    CASSETTE_ASSIGN_OR_RETURN(server.max_in_flight, parse_number<int>(name, value, 1, 1 << 16));
    return Status::ok();
  }
  if (name == "--idle-timeout") {
    CASSETTE_ASSIGN_OR_RETURN(server.idle_timeout_seconds,
                              parse_number<int>(name, value, 0, 7 * 24 * 3600));
    return Status::ok();
  }
  if (name == "--batch-size-fail-threshold") {
    CASSETTE_ASSIGN_OR_RETURN(int64_t kib, parse_number<int64_t>(name, value, 0, int64_t{1} << 30));
    server.batch_size_fail_threshold = kib * 1024;
    return Status::ok();
  }
  if (name == "--sync") {
    CASSETTE_ASSIGN_OR_RETURN(options->sync, storage::parse_sync_mode(value, "--sync"));
    return Status::ok();
  }
  if (name == "--max-connections") {
    CASSETTE_ASSIGN_OR_RETURN(server.max_connections, parse_number<int>(name, value, 1, 1 << 20));
    return Status::ok();
  }
  return Status::invalid_argument(fmt::format("unknown option '{}' for serve", name));
}

// Options without a value.
bool is_flag(std::string_view arg) {
  return arg == "--insecure";
}

Status apply_flag(std::string_view name, ServeOptions* options) {
  if (name == "--insecure") options->server.insecure = true;
  return Status::ok();
}

}  // namespace

Status parse_listen_address(std::string_view text, ServerOptions* options) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::invalid_argument(
        fmt::format("--listen needs HOST:PORT (such as 127.0.0.1:9042), not '{}'", text));
  }
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  CASSETTE_ASSIGN_OR_RETURN(options->port,
                            parse_number<uint16_t>("--listen's port", text.substr(colon + 1), 0,
                                                   std::numeric_limits<uint16_t>::max()));
  options->host = std::string(host);
  return Status::ok();
}

Result<ServeOptions> parse_serve_options(std::span<const std::string> args) {
  ServeOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (is_flag(arg)) {
      CASSETTE_RETURN_IF_ERROR(apply_flag(arg, &options));
    } else if (arg.starts_with("--")) {
      const size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        CASSETTE_RETURN_IF_ERROR(apply_option(std::string_view(arg).substr(0, equals),
                                              std::string_view(arg).substr(equals + 1), &options));
      } else if (i + 1 < args.size()) {
        CASSETTE_RETURN_IF_ERROR(apply_option(arg, args[++i], &options));
      } else {
        return Status::invalid_argument(fmt::format("option '{}' needs a value", arg));
      }
    } else if (options.store.empty()) {
      options.store = arg;
    } else {
      return Status::invalid_argument(fmt::format("unexpected argument '{}'", arg));
    }
  }
  if (options.store.empty() && !options.help) {
    return Status::invalid_argument("serve needs a store (a directory, or :memory:)");
  }
  return options;
}

std::string serve_usage_text() {
  return "Usage: cassette serve STORE [OPTIONS]\n"
         "Serves STORE to Cassandra drivers over the CQL native protocol (v3, v4, v5).\n"
         "\n"
         "  --listen HOST:PORT       where to listen (default 127.0.0.1:9042; port 0: any free\n"
         "                           port, printed on the 'listening on' line)\n"
         "  --max-frame-size BYTES   the largest request frame (default 16777216)\n"
         "  --max-connections N      connections served at once; more are closed (default 1024)\n"
         "  --auth-file FILE         require a user and password (PasswordAuthenticator) from\n"
         "                           the 'user:bcrypt-hash' lines of FILE (`cassette passwd`)\n"
         "  --insecure               allow a non-loopback --listen address without --auth-file\n"
         "  --tls-cert FILE          serve TLS only, with this PEM certificate (chain)...\n"
         "  --tls-key FILE           ...and this PEM private key\n"
         "  --max-in-flight N        requests a connection may have running or unwritten\n"
         "                           before the server stops reading it (default 128)\n"
         "  --idle-timeout SECONDS   close connections that send no request that long\n"
         "                           (default 0: never)\n"
         "  --batch-size-fail-threshold KIB\n"
         "                           refuse a batch over several partitions bigger than this,\n"
         "                           \"Batch too large\", as Cassandra does (default 50; 0: no\n"
         "                           limit, for large migration batches)\n"
         "  --sync full|normal|off   when a commit reaches the disk: full (default) before it is\n"
         "                           acknowledged; normal within a few milliseconds (a power\n"
         "                           loss may lose the last ones, a crash of the server none);\n"
         "                           off when the operating system writes it back\n"
         "\n"
         "Prints 'listening on HOST:PORT' once it accepts connections. SIGINT or SIGTERM stops\n"
         "it: requests under way finish, the store is closed, the exit status is 0.\n";
}

int run_serve_command(std::span<const std::string> args) {
  auto options = parse_serve_options(args);
  if (!options.is_ok()) {
    std::fprintf(stderr, "cassette serve: %s\nTry 'cassette serve --help'.\n",
                 options.status().message().c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(serve_usage_text().c_str(), stdout);
    return 0;
  }
  // Before the store is opened (and created): a refused address changes nothing.
  if (const Status allowed = check_server_options(options->server); !allowed.is_ok()) {
    std::fprintf(stderr, "cassette serve: %s\n", allowed.message().c_str());
    return 2;
  }
  storage::StoreOptions store_options;
  store_options.create_if_missing = true;
  store_options.sync = options->sync;
  auto store = storage::Store::open(options->store, store_options);
  if (!store.is_ok()) {
    std::fprintf(stderr, "cassette serve: cannot open store %s: %s\n", options->store.c_str(),
                 store.status().message().c_str());
    return 1;
  }
  const Status served = run_server(std::move(*store), options->server, [](const std::string& at) {
    std::printf("listening on %s\n", at.c_str());
    std::fflush(stdout);
  });
  if (!served.is_ok()) {
    std::fprintf(stderr, "cassette serve: %s\n", served.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace cassette::server
