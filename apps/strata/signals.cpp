// The signal handlers (see signals.hpp). Only async-signal-safe calls in the handler:
// write(2), unlink(2) through drivers::remove_unfinished_outputs, _exit(2).
#include "apps/strata/signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <initializer_list>

#include "drivers/outputs.hpp"

namespace strata::cli {

namespace {

// Lock-free atomics are async-signal-safe. The exchange decides which signal was first
// even when two arrive at once and are handled on two threads (OpenMP workers share the
// process's handlers, and the kernel may deliver each signal to a different thread).
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<bool> g_cooperative{false};
// Under mpirun every rank gets the signal: one speaks for the job (rank 0), the rest stop
// quietly with the same status.
std::atomic<bool> g_speaker{true};
std::atomic<bool> g_job{false};

// One message, one write(2): pieces written separately can interleave with another
// process's output or with a handler that runs later.
void say(std::initializer_list<const char*> parts) {
  char line[256];
  std::size_t n = 0;
  for (const char* part : parts)
    for (std::size_t i = 0; part[i] != '\0' && n < sizeof line; ++i) line[n++] = part[i];
  const ssize_t ignored = ::write(2, line, n);
  (void)ignored;
}

extern "C" void on_signal(int sig) {
  const bool first = g_signal.exchange(sig) == 0;
  const bool speak = g_speaker.load();
  // mpirun passes an interrupt of its own (Ctrl-C) on to the ranks as SIGTERM, and ends the
  // others with it when a rank dies without a word (killed, or out of memory): a rank's own
  // refusal or failure speaks for itself and the rest stop quietly. A batch system's limit or
  // a plain kill sends it too: the line says how it can come, not which way it came.
  const char* via = g_job.load() && sig == SIGTERM
                        ? " (under mpirun Ctrl-C reaches the ranks as SIGTERM, and so does a "
                          "rank's death)"
                        : "";
  if (first && g_cooperative.load()) {
    if (speak)
      say({"\nstrata: ", signal_name(sig), " received", via,
           ": stopping after the current step or file (send it again to stop at once)\n"});
    return;
  }
  const int removed = drivers::remove_unfinished_outputs();
  if (speak)
    say({"\nstrata: interrupted by ", signal_name(sig), via,
         removed > 0 ? "; unfinished output files removed\n" : "\n"});
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
  // The handled signals are blocked while one handler runs: a second signal waits for the
  // first handler to return, so the handlers never nest (a nested one saw the first's state
  // half-updated and exited with the first signal's status).
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);
  sa.sa_flags = SA_RESTART;  // an interrupted write carries on: the cooperative stop finishes it
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void set_cooperative(bool on) { g_cooperative.store(on); }

void set_speaker(bool speaker, bool job) {
  g_speaker.store(speaker);
  g_job.store(job);
}

int interrupted() { return g_signal.load(); }

}  // namespace strata::cli
