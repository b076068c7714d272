// Console: ordered stdout/stderr output with a memory of the last two characters written.
#include "ext/cli/console.h"

namespace cassette::cli {

void Console::remember(std::string_view text) {
  if (text.empty()) return;
  if (text.size() >= 2) {
    before_last_ = text[text.size() - 2];
  } else {
    before_last_ = last_;
  }
  last_ = text.back();
}

void Console::out(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), out_);
  remember(text);
}

void Console::err(std::string_view text) {
  std::fflush(out_);
  std::fwrite(text.data(), 1, text.size(), err_);
  std::fflush(err_);
  remember(text);
}

void Console::error_line(std::string_view text) {
  std::string line(text);
  line += '\n';
  err(line);
}

void Console::flush() {
  std::fflush(out_);
  std::fflush(err_);
}

bool Console::ends_with_blank_line() const {
  return last_ == '\n' && before_last_ == '\n';
}

}  // namespace cassette::cli
