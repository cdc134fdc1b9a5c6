// Available host memory from the kernel's own accounting (see host_memory.hpp). Linux
// files: /proc/meminfo, /proc/self/cgroup and the cgroup filesystem, /proc/self/statm.
#include "base/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "strata/error.hpp"

namespace strata::host {

namespace {

// The first number in a file ("max" and unreadable files give a negative number: no limit).
double read_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return -1;
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  return end && *end == '\0' ? v : -1;
}

void tighten(Available& a, double bytes, const std::string& limit) {
  if (bytes >= 0 && bytes < a.bytes) {
    a.bytes = bytes;
    a.limit = limit;
  }
}

// Limits of this process's cgroup and of each ancestor (a parent's limit binds the child).
void cgroup_limits(Available& a) {
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  while (std::getline(self, line)) {
    const auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::filesystem::path rel = line.substr(c2 + 1);
    const bool v2 = controllers.empty();
    if (!v2 && controllers.find("memory") == std::string::npos) continue;
    const std::filesystem::path root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char* limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char* usage_file = v2 ? "memory.current" : "memory.usage_in_bytes";
    // Inside a container the cgroup path may not exist under the mount (its root is ours).
    for (std::filesystem::path p = rel.relative_path();; p = p.parent_path()) {
      const std::filesystem::path dir = root / p;
      const double limit = read_number(dir / limit_file), usage = read_number(dir / usage_file);
      if (limit >= 0 && limit < 1e18)  // v1 writes "no limit" as a huge number
        tighten(a, limit - std::max(usage, 0.0),
                std::string("the cgroup memory limit (") + (dir / limit_file).string() + ")");
      if (p.empty()) break;
    }
  }
}

void rlimits(Available& a) {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  statm >> pages;
  const double mapped = pages * double(::sysconf(_SC_PAGESIZE));
  const std::pair<int, const char*> limits[] = {{RLIMIT_AS, "the address-space limit (ulimit -v)"},
                                                {RLIMIT_DATA, "the data-segment limit (ulimit -d)"}};
  for (const auto& [resource, name] : limits) {
    rlimit r{};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      tighten(a, std::max(0.0, double(r.rlim_cur) - mapped), name);
  }
}

}  // namespace

Available available_memory() {
  Available a;
  a.bytes = INFINITY;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (meminfo >> key >> kb) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") tighten(a, kb * 1024, "MemAvailable in /proc/meminfo");
  }
  cgroup_limits(a);
  rlimits(a);
  return a;
}

std::string format_bytes(double bytes) {
  char b[64];
  if (bytes >= std::pow(1024.0, 4)) std::snprintf(b, sizeof b, "%.3g TiB", bytes / std::pow(1024.0, 4));
  else if (bytes >= double(1 << 30)) std::snprintf(b, sizeof b, "%.1f GiB", bytes / double(1 << 30));
  else std::snprintf(b, sizeof b, "%.0f MiB", std::ceil(bytes / double(1 << 20)));
  return b;
}

void require_host_memory(double bytes, const std::string& what, const std::string& parts,
                         const std::string& advice) {
  const Available a = available_memory();
  if (!(bytes > a.bytes)) return;  // also when nothing could be read (infinite)
  throw Error(what + " needs about " + format_bytes(bytes) + " of host memory" + (parts.empty() ? "" : " (" + parts + ")") +
              " but " + format_bytes(a.bytes) + " is available (" + a.limit + "): " + advice);
}

}  // namespace strata::host
