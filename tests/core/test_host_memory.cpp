// Available host memory and the up-front refusal: the figure comes from the kernel's own
// accounting and follows the tightest limit (here an address-space limit set in a child),
// and the refusal names what needs the memory, how much, and how much there is.
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "common/process.hpp"
#include "base/host_memory.hpp"
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
  const std::string m = test::in_child([] {
    std::ifstream statm("/proc/self/statm");
    double pages = 0;
    statm >> pages;
    const rlim_t cap = rlim_t(pages * double(::sysconf(_SC_PAGESIZE))) + (rlim_t(256) << 20);
    const rlimit lim{cap, cap};
    ::setrlimit(RLIMIT_AS, &lim);
    const host::Available a = host::available_memory();
    return std::to_string(a.bytes <= double(256 << 20) && a.bytes > 0) + a.limit;
  });
  EXPECT_EQ(m, "1the address-space limit (ulimit -v)");
}
