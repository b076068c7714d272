#include "ext/server/password_file.h"

#include <crypt.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <memory>
#include <vector>

#include "engine/util/file.h"

namespace cassette::server {

namespace {

bool is_bcrypt_hash(std::string_view hash) {
  return hash.size() == 60 && (hash.starts_with("$2a$") || hash.starts_with("$2b$"));
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool is_skipped(std::string_view line) {
  return line.empty() || line.front() == '#';
}

}  // namespace

Result<PasswordFile> PasswordFile::load(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(std::string text, file::read_whole_file(path));
  PasswordFile file;
  int number = 0;
  for (std::string_view line : split_lines(text)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_skipped(line)) continue;
    const size_t colon = line.find(':');
    std::string_view hash = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    std::string_view permissions;
    if (const size_t more = hash.find(':'); more != std::string_view::npos) {  // no ':' in bcrypt
      permissions = hash.substr(more + 1);
      hash = hash.substr(0, more);
    }
    if (colon == 0 || !is_bcrypt_hash(hash)) {
      return Status::invalid_argument(
          fmt::format("{}:{}: expected 'user:hash' with a bcrypt hash ($2a$ or $2b$, as "
                      "`cassette passwd` writes)",
                      path, number));
    }
    Permissions granted;
    while (!permissions.empty()) {
      const size_t comma = permissions.find(',');
      const std::string_view word = permissions.substr(0, comma);
      if (word == "unmask" || word == "superuser") {
        granted.unmask = true;
        granted.select_masked = true;
      } else if (word == "select_masked") {
        granted.select_masked = true;
      } else {
        return Status::invalid_argument(fmt::format(
            "{}:{}: unknown permission '{}' (expected 'unmask', 'select_masked' or 'superuser')",
            path, number, word));
      }
      if (comma == std::string_view::npos) break;
      permissions.remove_prefix(comma + 1);
    }
    const std::string user(line.substr(0, colon));
    file.hashes_.insert_or_assign(user, std::string(hash));
    file.permissions_.insert_or_assign(user, granted);
  }
  return file;
}

bool PasswordFile::check(std::string_view user, std::string_view password) const {
  auto entry = hashes_.find(user);
  if (entry == hashes_.end()) return false;
  // crypt_rn reads a NUL-terminated password: one with a NUL in it never matches.
  if (password.find('\0') != std::string_view::npos) return false;
  auto data = std::make_unique<crypt_data>();  // about 32 KiB: not on a worker's stack
  const std::string phrase(password);
  const char* hashed = crypt_rn(phrase.c_str(), entry->second.c_str(), data.get(), sizeof *data);
  return hashed != nullptr && entry->second == hashed;
}

bool PasswordFile::can_unmask(std::string_view user) const {
  auto entry = permissions_.find(user);
  return entry != permissions_.end() && entry->second.unmask;
}

bool PasswordFile::can_select_masked(std::string_view user) const {
  auto entry = permissions_.find(user);
  return entry != permissions_.end() && entry->second.select_masked;
}

Result<std::string> hash_password(std::string_view password) {
  if (password.find('\0') != std::string_view::npos) {
    return Status::invalid_argument("a password cannot hold a NUL byte");
  }
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  // A null random source: libcrypt reads the system's (getrandom).
  if (crypt_gensalt_rn("$2b$", kBcryptLogRounds, nullptr, 0, salt, sizeof salt) == nullptr) {
    return Status::internal("libcrypt cannot make a bcrypt salt");
  }
  auto data = std::make_unique<crypt_data>();
  const std::string phrase(password);
  const char* hashed = crypt_rn(phrase.c_str(), salt, data.get(), sizeof *data);
  if (hashed == nullptr) return Status::internal("libcrypt cannot hash with bcrypt");
  return std::string(hashed);
}

Status write_password_line(const std::string& path, std::string_view user, std::string_view hash) {
  if (user.empty() || user.find_first_of(":\r\n") != std::string_view::npos || user[0] == '#') {
    return Status::invalid_argument(
        fmt::format("'{}' cannot be a user name: it must be non-empty, must not start with '#' "
                    "and must not hold ':' or a line break",
                    user));
  }
  std::string old_text;
  if (file::exists(path)) {
    CASSETTE_ASSIGN_OR_RETURN(old_text, file::read_whole_file(path));
  }
  std::string text;
  bool replaced = false;
  const std::string prefix = fmt::format("{}:", user);
  for (std::string_view line : split_lines(old_text)) {
    if (line.starts_with(prefix)) {
      if (replaced) continue;  // a duplicate line of the same user goes
      // the user's permissions (after the hash, which holds no ':') stay
      const size_t more = line.find(':', prefix.size());
      const std::string_view permissions =
          more == std::string_view::npos ? std::string_view() : line.substr(more);
      text += fmt::format("{}{}{}\n", prefix, hash, permissions);
      replaced = true;
    } else {
      text += fmt::format("{}\n", line);
    }
  }
  if (!replaced) text += fmt::format("{}{}\n", prefix, hash);
  CASSETTE_RETURN_IF_ERROR(file::write_file_atomically(path, text));
  // Hashes are not passwords, but no one else needs to read them. (The file was replaced by a
  // new one: this is its mode, not a change of an old file's.)
  if (::chmod(path.c_str(), 0600) != 0) {
    return Status::io_error(fmt::format("cannot make {} private (chmod 0600)", path));
  }
  return Status::ok();
}

}  // namespace cassette::server
