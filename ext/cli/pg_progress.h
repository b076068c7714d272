// What pg-export and pg-import tell the user while and after they run: a progress bar on
// standard error when it is a terminal (nothing otherwise, so scripts and logs stay clean), and
// a rejects file for the rows that could not be moved, with the reason for each.
//
//   pg-import ks.orders [##########----------]  51%  102400 rows  85123 rows/s
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/util/status.h"

namespace cassette::cli::pg {

class ProgressBar {
 public:
  // `label` starts the line ("pg-export ks.t"). Shown only when `enabled`.
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();

  // Redraws (at most ten times a second). `fraction` in [0, 1] when the total is known or
  // estimated; the bar then shows it (kept below 100% until finish()).
  void update(int64_t rows, std::optional<double> fraction);
  // Clears the line; call before printing anything else.
  void finish();
  // Seconds since the bar was made.
  double elapsed_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point started_;
  Clock::time_point last_draw_;
};

// "<rows> rows in <s> s (<rate> rows/s)".
std::string describe_rate(int64_t rows, double seconds);

// A CSV file of rejected rows: a header of the given column names plus "reason", then one
// record per rejected row (null as an empty field). The file is created at the first rejected
// row, so a run without rejects leaves no file.
class RejectsFile {
 public:
  RejectsFile(std::string path, std::vector<std::string> columns);
  ~RejectsFile();
  Status add(std::span<const std::optional<std::string>> fields, const std::string& reason);
  int64_t count() const { return count_; }
  const std::string& path() const { return path_; }
  Status close();

 private:
  std::string path_;
  std::vector<std::string> columns_;
  std::FILE* file_ = nullptr;
  int64_t count_ = 0;
};

}  // namespace cassette::cli::pg
