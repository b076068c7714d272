// FileSizeLimit: a write past a size fails with EFBIG, for tests of what a failed write leaves.
#pragma once

#include <signal.h>
#include <sys/resource.h>

namespace cassette::test {

// Makes the process unable to grow any file past `bytes` (writes fail with EFBIG) while alive.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

}  // namespace cassette::test
