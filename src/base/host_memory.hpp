// Host memory the process may still use, and the up-front check every verb makes before it
// allocates a large footprint: without it the kernel's OOM killer ends the run (exit 137, no
// message) after minutes of work, or an allocation throws std::bad_alloc.
#pragma once

#include <cstddef>
#include <string>

namespace strata::host {

struct Available {
  double bytes = 0;    // what may still be allocated (the tightest of the limits below)
  std::string limit;   // which limit that is, in words, for messages
};

// The smallest of: MemAvailable in /proc/meminfo (free plus reclaimable), the cgroup's
// memory limit less its usage (v2 memory.max, v1 memory.limit_in_bytes, every level up to
// the root), and the address-space and data-segment limits (ulimit -v, -d) less what the
// process already maps.
Available available_memory();

// Throws Error, before anything is allocated, when `bytes` (a double: estimates of absurd
// grids must not overflow) will not fit in available_memory(). The message says what needs
// it (`what`), the parts (`parts`, e.g. "u and u_prev 2.1 GiB, ..."), how much is
// available and under which limit, and `advice`.
void require_host_memory(double bytes, const std::string& what, const std::string& parts = "",
                         const std::string& advice = "use a smaller grid");

// "12.3 GiB", "512 MiB": for messages.
std::string format_bytes(double bytes);

}  // namespace strata::host
