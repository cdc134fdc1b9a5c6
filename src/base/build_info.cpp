// build_info(): what this binary is, for `strata info`, --version and benchmark JSON; and
// why the CPU has no FFT where it has none.
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
    b.cpu_fft = STRATA_HAVE_CPU_FFT;
    return b;
  }();
  return info;
}

std::string cpu_fft_unavailable_reason() {
  if (build_info().cpu_fft) return "";
  return std::string("built without the CPU's FFT (") + STRATA_CPU_FFT_ABSENT +
         "): install KissFFT (Debian/Ubuntu: libkissfft-dev) and configure again with "
         "STRATA_CPU_FFT=AUTO or ON";
}

}  // namespace strata
