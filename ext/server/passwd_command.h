// `cassette passwd FILE USER`: writes USER's line into a password file for `cassette serve
// --auth-file FILE` (password_file.h). The password is read from stdin - from the terminal
// without echo, asked twice, or the first line of a pipe - and never from the command line,
// where other users could see it in the process list.
#pragma once

#include <span>
#include <string>

namespace cassette::server {

// Returns the exit status: 0 once the line is written, 1 when it cannot be, 2 for bad
// arguments or an empty or mismatched password.
int run_passwd_command(std::span<const std::string> args);

}  // namespace cassette::server
