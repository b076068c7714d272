// Console: where the shell writes results (stdout) and errors (stderr). It flushes stdout before
// every write to stderr so that, with both streams merged (2>&1, as the golden tests run), the
// text appears in the order it was produced; and it remembers how the output so far ends, so
// echo mode can separate statements by exactly one blank line.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace cassette::cli {

class Console {
 public:
  Console(std::FILE* out = stdout, std::FILE* err = stderr) : out_(out), err_(err) {}

  void out(std::string_view text);
  void err(std::string_view text);
  // An error line: the text and a newline, on stderr.
  void error_line(std::string_view text);
  void flush();

  // Whether everything written so far (to either stream) ends with an empty line (true
  // before anything is written).
  bool ends_with_blank_line() const;

 private:
  void remember(std::string_view text);
  std::FILE* out_;
  std::FILE* err_;
  char last_ = '\n';
  char before_last_ = '\n';
};

}  // namespace cassette::cli
