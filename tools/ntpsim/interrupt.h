// SIGINT/SIGTERM handling for the long-running commands (`run`, `sweep`, `plan`).
//
// `install_interrupt_handlers()` installs a handler for SIGINT and SIGTERM that does one thing:
// it stores true into a lock-free std::atomic<bool>. That flag is the only global state of the
// CLI (a signal handler can reach nothing else); it lives in interrupt.cpp and is read through
// `interrupt_flag()`, which commands pass as `sim::RunOptions::cancel`. The Monte Carlo workers
// stop starting replications once it is set, the command then reports what finished, writes no
// output file, and exits 1. A second signal while stopping restores the default action, so a
// second Ctrl-C kills the process at once.
//
// Thread safety: the flag is atomic; install once from main's thread before starting workers.
#pragma once

#include <atomic>

namespace ntpsim::cli {

void install_interrupt_handlers();

// The flag the handler sets; never null. Stays set for the rest of the process.
const std::atomic<bool>* interrupt_flag();

}  // namespace ntpsim::cli
