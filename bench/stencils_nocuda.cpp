// Without the CUDA backend the GPU benchmark only explains why it cannot run.
#if !STRATA_HAVE_CUDA
#include "bench/bench.hpp"
#include "strata/error.hpp"

namespace strata::bench {
std::vector<Result> stencils_cuda(const Options&) {
  throw Error("the GPU benchmark needs a CUDA build: strata was built without CUDA");
}
}  // namespace strata::bench
#endif

#if !STRATA_HAVE_CUDA
#include "bench/poisson.hpp"
namespace strata::bench {
std::vector<Result> poisson_cuda(const Options&) {
  throw Error("the Poisson benchmark needs a CUDA build: strata was built without CUDA");
}
}  // namespace strata::bench
#endif
