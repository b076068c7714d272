// The progress bar and the rejects file of the bridge (see pg_progress.h).
#include "ext/cli/pg_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ext/cli/csv.h"

namespace cassette::cli::pg {

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), started_(Clock::now()), last_draw_() {}

ProgressBar::~ProgressBar() {
  finish();
}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(Clock::now() - started_).count();
}

void ProgressBar::update(int64_t rows, std::optional<double> fraction) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (shown_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double seconds = elapsed_seconds();
  double rate = seconds > 0 ? static_cast<double>(rows) / seconds : 0;
  std::string line = "\r" + label_;
  if (fraction) {
    constexpr int kWidth = 30;
    double shown = std::clamp(*fraction, 0.0, 0.99);
    int filled = static_cast<int>(shown * kWidth);
    line += fmt::format(" [{}{}] {:3.0f}%", std::string(static_cast<size_t>(filled), '#'),
                        std::string(static_cast<size_t>(kWidth - filled), '-'), shown * 100);
  }
  line += fmt::format("  {} rows  {:.0f} rows/s  {:.1f} s\x1b[K", rows, rate, seconds);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressBar::finish() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

std::string describe_rate(int64_t rows, double seconds) {
  double rate = seconds > 0 ? static_cast<double>(rows) / seconds : 0;
  return fmt::format("{} rows in {:.3f} s ({:.0f} rows/s)", rows, seconds, rate);
}

RejectsFile::RejectsFile(std::string path, std::vector<std::string> columns)
    : path_(std::move(path)), columns_(std::move(columns)) {}

RejectsFile::~RejectsFile() {
  (void)close();
}

Status RejectsFile::add(std::span<const std::optional<std::string>> fields,
                        const std::string& reason) {
  const CsvDialect dialect{',', '"', std::nullopt};  // RFC 4180: quotes doubled
  if (file_ == nullptr) {
    file_ = std::fopen(path_.c_str(), "wb");
    if (file_ == nullptr) {
      return Status::io_error(
          fmt::format("cannot write rejects file {}: {}", path_, std::strerror(errno)));
    }
    std::vector<std::string> header = columns_;
    header.push_back("reason");
    std::string line = csv_record(header, dialect);
    std::fwrite(line.data(), 1, line.size(), file_);
  }
  std::string line;
  for (const std::optional<std::string>& field : fields) {
    if (!line.empty() || &field != fields.data()) line += ',';
    // A null is an empty field; an empty string is "" so the two stay apart.
    if (field) line += field->empty() ? "\"\"" : csv_field(*field, dialect);
  }
  line += ',';
  line += csv_field(reason, dialect);
  line += '\n';
  ++count_;
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size()) {
    return Status::io_error(
        fmt::format("cannot write rejects file {}: {}", path_, std::strerror(errno)));
  }
  return Status::ok();
}

Status RejectsFile::close() {
  if (file_ == nullptr) return Status::ok();
  bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok) {
    return Status::io_error(
        fmt::format("cannot write rejects file {}: {}", path_, std::strerror(errno)));
  }
  return Status::ok();
}

}  // namespace cassette::cli::pg
