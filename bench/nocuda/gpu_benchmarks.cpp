// The GPU benchmark families in a build without CUDA: each only explains why it cannot run.
// Compiled instead of bench/*.cu (bench/CMakeLists.txt), so no caller needs an #if.
#include "bench/poisson.hpp"
#include "bench/reduce.hpp"
#include "bench/steps.hpp"
#include "bench/transfers.hpp"
#include "bench/wave.hpp"
#include "strata/error.hpp"

namespace strata::bench {

std::vector<Result> stencils_cuda(const Options&) {
  throw Error("the GPU benchmark needs a CUDA build: strata was built without CUDA");
}
std::vector<Result> reduce_cuda(const Options&) {
  throw Error("strata bench --kernel reduce --device cuda: strata was built without CUDA");
}
std::vector<Result> wave_cuda(const Options&) {
  throw Error("the GPU benchmark needs a CUDA build: strata was built without CUDA");
}
std::vector<Result> steps_cuda(const Options&) {
  throw Error("the repeated-steps benchmark needs a CUDA build: strata was built without CUDA");
}
std::vector<Result> transfers_cuda(const Options&) {
  throw Error("the transfer benchmark needs a CUDA build: strata was built without CUDA");
}
std::vector<Result> poisson_cuda(const Options&) {
  throw Error("the Poisson benchmark needs a CUDA build: strata was built without CUDA");
}

}  // namespace strata::bench
