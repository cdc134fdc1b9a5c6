// build_info(): what this binary is, for `strata info`, --version and benchmark JSON.
#include "strata/device.hpp"

namespace strata {
namespace detail {
extern const char* const kCommit;  // generated at build time (cmake/build_info.cmake)
}

const BuildInfo& build_info() {
  static const BuildInfo info = [] {
    BuildInfo b;
    b.version = STRATA_VERSION;
    b.commit = detail::kCommit;
    b.build_type = STRATA_BUILD_TYPE;
    b.cuda = STRATA_HAVE_CUDA;
    b.cuda_architectures = STRATA_CUDA_ARCHS;
    b.compiler = STRATA_CXX_COMPILER;
    return b;
  }();
  return info;
}

}  // namespace strata
