#include "ext/server/passwd_command.h"

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>

#include "ext/server/password_file.h"

namespace cassette::server {

namespace {

constexpr const char* kUsage =
    "Usage: cassette passwd FILE USER\n"
    "Writes USER's bcrypt password hash into FILE (created if missing, mode 0600), replacing\n"
    "USER's line if there is one, for `cassette serve --auth-file FILE`. The password is read\n"
    "from stdin: asked twice without echo on a terminal, else the first line.\n";

// Turns the terminal's echo off while it lives.
class EchoOff {
 public:
  EchoOff() : active_(::tcgetattr(STDIN_FILENO, &saved_) == 0) {
    if (!active_) return;
    termios quiet = saved_;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  ~EchoOff() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

 private:
  termios saved_{};
  bool active_;
};

std::optional<std::string> read_line() {
  std::string line;
  if (!std::getline(std::cin, line)) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::optional<std::string> prompt_without_echo(const char* prompt) {
  std::fputs(prompt, stderr);
  std::fflush(stderr);
  std::optional<std::string> line;
  {
    EchoOff echo_off;
    line = read_line();
  }
  std::fputs("\n", stderr);
  return line;
}

// The password, or nullopt after saying why on stderr.
std::optional<std::string> read_password() {
  if (!::isatty(STDIN_FILENO)) {
    auto line = read_line();
    if (!line || line->empty()) {
      std::fputs("cassette passwd: no password on stdin (its first line is the password)\n",
                 stderr);
      return std::nullopt;
    }
    return line;
  }
  auto first = prompt_without_echo("Password: ");
  if (!first || first->empty()) {
    std::fputs("cassette passwd: the password cannot be empty\n", stderr);
    return std::nullopt;
  }
  auto again = prompt_without_echo("Password again: ");
  if (!again || *again != *first) {
    std::fputs("cassette passwd: the passwords differ; nothing written\n", stderr);
    return std::nullopt;
  }
  return first;
}

}  // namespace

int run_passwd_command(std::span<const std::string> args) {
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.size() != 2) {
    std::fprintf(stderr, "cassette passwd: needs FILE and USER (the password comes from stdin)\n%s",
                 kUsage);
    return 2;
  }
  const std::string& path = args[0];
  const std::string& user = args[1];
  auto password = read_password();
  if (!password) return 2;
  auto hash = hash_password(*password);
  if (!hash.is_ok()) {
    std::fprintf(stderr, "cassette passwd: %s\n", hash.status().message().c_str());
    return 1;
  }
  const Status written = write_password_line(path, user, *hash);
  if (!written.is_ok()) {
    std::fprintf(stderr, "cassette passwd: %s\n", written.message().c_str());
    return written.code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  return 0;
}

}  // namespace cassette::server
