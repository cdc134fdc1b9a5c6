// The signal handlers (see signals.hpp). Only async-signal-safe calls in the handler:
// write(2), unlink(2) through io::remove_temporaries, _exit(2).
#include "apps/strata/signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "strata/atomic_file.hpp"

namespace strata::cli {

namespace {

volatile sig_atomic_t g_signal = 0;
std::atomic<bool> g_cooperative{false};

void say(const char* text) {
  const ssize_t ignored = ::write(2, text, std::strlen(text));
  (void)ignored;
}

extern "C" void on_signal(int sig) {
  const bool first = g_signal == 0;
  g_signal = sig;
  if (first && g_cooperative.load()) {
    say("\nstrata: ");
    say(signal_name(sig));
    say(" received: stopping after the current step or file (send it again to stop at once)\n");
    return;
  }
  const int removed = io::remove_temporaries();
  say("\nstrata: interrupted by ");
  say(signal_name(sig));
  say(removed > 0 ? "; unfinished output files removed\n" : "\n");
  ::_exit(128 + sig);
}

}  // namespace

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "a signal";
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // an interrupted write carries on: the cooperative stop finishes it
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void set_cooperative(bool on) { g_cooperative.store(on); }

int interrupted() { return g_signal; }

}  // namespace strata::cli
