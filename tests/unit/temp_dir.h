// A fresh directory under /tmp for one test, removed (with everything in it) at the end of the
// scope. Shared by every test that touches files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace cassette::test {

class TempDir {
 public:
  // Under /tmp, or under `base` (which must exist).
  explicit TempDir(std::string_view base = "/tmp") {
    std::string pattern = std::string(base) + "/cassette-test-XXXXXX";
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace cassette::test
