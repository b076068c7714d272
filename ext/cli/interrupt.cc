// The SIGINT handler (see interrupt.h).
#include "ext/cli/interrupt.h"

#include <csignal>

namespace cassette::cli {

namespace {

// Lock-free, so the handler may set it (the only thing it does).
std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) {
  interrupted.store(true);
}

}  // namespace

std::atomic<bool>& interrupt_flag() {
  return interrupted;
}

void install_interrupt_handler() {
  struct sigaction action = {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: see interrupt.h
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace cassette::cli
