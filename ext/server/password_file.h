// The users `cassette serve --auth-file FILE` lets in, and the bcrypt hashes that check their
// passwords. One user a line, `user:hash`, the hash in the form Cassandra keeps in
// system_auth.roles.salted_hash (bcrypt, `$2a$` or `$2b$`): a hash copied from a Cassandra
// cluster works as it is. Blank lines and lines starting with '#' are skipped.
// A line may end with `:` and the user's permissions, comma-separated: `unmask` (Cassandra's
// UNMASK: SELECT shows the clear values of masked columns, and may restrict them in WHERE),
// `select_masked` (Cassandra's SELECT_MASKED: a SELECT may restrict masked columns in WHERE, its
// results stay masked) or `superuser` (every permission Cassette knows), as in
// `alice:$2b$10$...:unmask`. Without them a user sees masked values, and a SELECT of theirs
// whose WHERE clause restricts a masked column is refused, as Cassandra refuses it.
//
//   $ cassette passwd users.txt alice        (reads the password from stdin, without echo)
//   $ cassette serve app.cassette --auth-file users.txt
//
// The hashing is libcrypt's (libxcrypt on Debian 12: crypt_rn, crypt_gensalt_rn); no new
// dependency.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "engine/util/status.h"

namespace cassette::server {

// bcrypt's cost for new hashes: 2^10 rounds, Cassandra's default (auth_bcrypt_gensalt_log2_rounds).
inline constexpr int kBcryptLogRounds = 10;

class PasswordFile {
 public:
  // Reads `path`. InvalidArgument naming the file and line for a line that is not `user:$2?$...`;
  // IOError naming the file when it cannot be read.
  static Result<PasswordFile> load(const std::string& path);

  // True when `user` is in the file and `password` matches its hash. Thread-safe; takes the
  // time bcrypt takes (tens of milliseconds at cost 10), by design.
  bool check(std::string_view user, std::string_view password) const;

  size_t size() const { return hashes_.size(); }

  // True when the file gives `user` the UNMASK permission (`unmask` or `superuser`).
  bool can_unmask(std::string_view user) const;
  // True when the file gives `user` SELECT_MASKED, or UNMASK which includes it.
  bool can_select_masked(std::string_view user) const;

 private:
  struct Permissions {
    bool unmask = false;
    bool select_masked = false;
  };
  std::map<std::string, std::string, std::less<>> hashes_;       // user -> bcrypt hash
  std::map<std::string, Permissions, std::less<>> permissions_;  // user -> what the line gives
};

// A new bcrypt (`$2b$`) hash of `password` with a random salt. Internal when libcrypt fails.
Result<std::string> hash_password(std::string_view password);

// Writes `user:hash` into the file at `path`, replacing the user's line if there is one (its
// permissions stay) and keeping the other lines; creates the file when it does not exist. The file
// is replaced atomically (a temporary file renamed over it) by one of mode 0600. InvalidArgument
// for a user name with
// ':' or a line break, or an empty one; IOError naming the file.
Status write_password_line(const std::string& path, std::string_view user, std::string_view hash);

}  // namespace cassette::server
