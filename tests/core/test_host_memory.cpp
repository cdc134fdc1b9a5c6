// Available host memory and the up-front refusal: the figure comes from the kernel's own
// accounting and follows the tightest limit (here an address-space limit set in a child),
// and the refusal names what needs the memory, how much, and how much there is.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "core/host_memory.hpp"
#include "strata/error.hpp"

using namespace strata;

TEST(HostMemory, AvailableIsPositiveAndAtMostMemAvailable) {
  const host::Available a = host::available_memory();
  EXPECT_GT(a.bytes, 0.0);
  EXPECT_FALSE(a.limit.empty());
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0, mem_available = INFINITY;
  std::string rest;
  while (meminfo >> key >> kb) {
    std::getline(meminfo, rest);
    if (key == "MemAvailable:") mem_available = kb * 1024;
  }
  // Other processes allocate meanwhile: allow them a little.
  EXPECT_LE(a.bytes, mem_available * 1.05 + (64 << 20));
}

TEST(HostMemory, RefusalNamesTheNeedAndWhatIsAvailable) {
  try {
    host::require_host_memory(1e18, "the test's grid", "u 1 EiB", "use less");
    FAIL() << "1e18 bytes were accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the test's grid needs about"), std::string::npos) << m;
    EXPECT_NE(m.find("TiB of host memory (u 1 EiB)"), std::string::npos) << m;
    EXPECT_NE(m.find("is available ("), std::string::npos) << m;
    EXPECT_NE(m.find("use less"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(host::require_host_memory(1 << 20, "a MiB"));
}

// ulimit -v binds: the available figure is below it and names it.
TEST(HostMemory, AddressSpaceLimitBinds) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::ifstream statm("/proc/self/statm");
    double pages = 0;
    statm >> pages;
    const rlim_t cap = rlim_t(pages * double(::sysconf(_SC_PAGESIZE))) + (rlim_t(256) << 20);
    const rlimit lim{cap, cap};
    ::setrlimit(RLIMIT_AS, &lim);
    const host::Available a = host::available_memory();
    const std::string m = std::to_string(a.bytes <= double(256 << 20) && a.bytes > 0) + a.limit;
    ::_exit(::write(fds[1], m.data(), m.size()) == ssize_t(m.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string m;
  char buf[256];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) m.append(buf, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(m, "1the address-space limit (ulimit -v)");
}
