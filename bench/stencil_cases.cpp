// The stencil family's kernel list and the coefficients every benchmark run uses.
#include <stdexcept>

#include "bench/bench.hpp"
#include "strata/error.hpp"

namespace strata::bench {

const std::vector<std::string>& stencil_kernels() {
  static const std::vector<std::string> k = {"copy",  "copy_halo", "7pt",   "star2",
                                             "star3", "star4",     "sym27", "box27"};
  return k;
}

Stencil bench_stencil(const std::string& kernel) {
  if (kernel == "copy" || kernel == "copy_halo") {
    const double c[] = {1.0, 0.0};
    return Stencil::star(1, c);
  }
  if (kernel == "7pt") {
    const double c[] = {-5.9, 1.1};
    return Stencil::star(1, c);
  }
  if (kernel == "star2" || kernel == "star3" || kernel == "star4") {
    const int r = kernel[4] - '0';
    std::vector<double> c(r + 1);
    for (int i = 0; i <= r; ++i) c[i] = (i == 0 ? -7.3 : 1.7 / (i * i + 0.3 * i));
    return Stencil::star(r, c);
  }
  if (kernel == "sym27") return Stencil::sym27(2.61, 0.17, -0.23, -0.071);
  if (kernel == "box27") {
    std::vector<double> k(27);
    for (int i = 0; i < 27; ++i) k[i] = 0.05 * (i + 1) * ((i % 3) ? 1.0 : -1.3);
    return Stencil::box27(k);
  }
  throw Error("unknown stencil kernel '" + kernel +
              "': allowed copy, copy_halo, 7pt, star2, star3, star4, sym27, box27");
}

}  // namespace strata::bench
