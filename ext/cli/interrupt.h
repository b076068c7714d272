// Ctrl-C in the interactive shell, as in cqlsh: SIGINT no longer ends the process (losing the
// session and its history); it sets a flag. The prompt reads it as "drop the line being typed",
// a running statement as "stop" (cql::Session::set_interrupt_flag, COPY between rows).
//
//   install_interrupt_handler();
//   session.set_interrupt_flag(&interrupt_flag());
//   interrupt_flag() = false;  // before each prompt
#pragma once

#include <atomic>

namespace cassette::cli {

// The flag SIGINT sets once install_interrupt_handler() has run; whoever reads it clears it.
std::atomic<bool>& interrupt_flag();

// Installs the SIGINT handler for the rest of the process. Without SA_RESTART, so that a read
// blocked in the line editor returns (EINTR) and the prompt can start over.
void install_interrupt_handler();

}  // namespace cassette::cli
