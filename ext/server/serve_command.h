// `cassette serve STORE [--listen HOST:PORT] [OPTIONS]` (frame size, connections, in-flight
// responses, idle timeout, --auth-file, --tls-cert/--tls-key, --insecure): the shell's entry to
// the CQL native protocol server (server.h). See ext/cli/USAGE.md.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/storage/commit_log.h"
#include "engine/util/status.h"
#include "ext/server/server.h"

namespace cassette::server {

struct ServeOptions {
  std::string store;
  ServerOptions server;
  storage::SyncMode sync = storage::SyncMode::kFull;  // --sync: the commit log's sync mode
  bool help = false;
};

// Parses the arguments after "serve". Accepts "--opt value" and "--opt=value".
Result<ServeOptions> parse_serve_options(std::span<const std::string> args);

// "HOST:PORT", "[IPV6]:PORT": the host and port of --listen.
Status parse_listen_address(std::string_view text, ServerOptions* options);

std::string serve_usage_text();

// Runs `cassette serve` with the arguments after "serve"; returns the exit status (0 after a
// clean stop, 1 when the store cannot be opened or the address not listened on, 2 for bad
// arguments). Prints "listening on HOST:PORT" on stdout once it accepts connections.
int run_serve_command(std::span<const std::string> args);

}  // namespace cassette::server
