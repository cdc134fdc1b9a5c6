// Linked into the GPU test executables (tests/CMakeLists.txt): before main, and so before
// anything starts CUDA, the GPU CTest gave this test becomes the only one it sees
// (common/ctest_gpus.hpp). A static initializer rather than a launcher: it needs no CMake
// feature that the versions strata builds with (3.25 to 4.x) handle differently.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "common/ctest_gpus.hpp"

namespace {

const bool applied = [] {
  try {
    const auto value = strata::test::ctest_visible_devices(
        [](const std::string& name) { return std::getenv(name.c_str()); });
    if (!value) return false;
    ::setenv("CUDA_VISIBLE_DEVICES", value->c_str(), 1);
    ::setenv("STRATA_TEST_CTEST_GPUS", value->c_str(), 1);  // what was applied, for the test
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata tests: %s\n", e.what());
    std::exit(2);
  }
}();

}  // namespace
