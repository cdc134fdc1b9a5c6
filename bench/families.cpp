#include "bench/families.hpp"

#include "bench/dist.hpp"
#include "bench/poisson.hpp"
#include "bench/reduce.hpp"
#include "bench/wave.hpp"

namespace strata::bench {

const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"stencils", stencil_kernels(), stencils_cpu, stencils_cuda, true},
      {"reduce", {"sum", "dot", "max_abs"}, reduce_cpu, reduce_cuda, false},
      {"wave", {}, wave_cpu, wave_cuda, false},
      {"poisson", {}, nullptr, poisson_cuda, false},
      {"dist", {}, dist_cpu, dist_cuda, false},
  };
  return table;
}

}  // namespace strata::bench
