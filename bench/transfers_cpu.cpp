#include <cstdio>

#include "bench/transfers.hpp"

namespace strata::bench {

std::vector<Result> transfers_cpu(const Options& opt) {
  if (!opt.quiet) std::fprintf(stderr, "  transfers  skipped: host <-> device copies need a GPU\n");
  return {};
}

}  // namespace strata::bench
