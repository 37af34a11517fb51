// The SIGINT/SIGTERM flag and handler; see interrupt.h.
#include "tools/ntpsim/interrupt.h"

#include <csignal>

namespace ntpsim::cli {
namespace {

// The one global of the CLI: a signal handler may only touch lock-free atomics.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int /*signo*/) {
  g_interrupted.store(true, std::memory_order_relaxed);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // the next signal of the kind takes the default action
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

}  // namespace ntpsim::cli
