// The method table: each --solver, the maker that builds what it needs (jacobi and cg
// nothing; mg, fmg and mgcg a multigrid hierarchy, mgcg's in float under fp64 with
// --mixed; fft the cuFFT plans) and how the monitor reads its residuals.
#include "solvers/poisson/method.hpp"

#include <string>

#include "strata/error.hpp"

namespace strata::poisson {

template <class T>
const MethodEntry<T>& method_entry(PoissonMethod id) {
  static const MethodEntry<T> table[] = {
      //                     make                stationary  fast   direct
      {PoissonMethod::jacobi, make_jacobi<T>,    true,       false, false},
      {PoissonMethod::mg,     make_multigrid<T>, true,       true,  false},
      {PoissonMethod::fmg,    make_multigrid<T>, true,       true,  false},
      {PoissonMethod::cg,     make_cg<T>,        false,      false, false},
      {PoissonMethod::mgcg,   make_mgcg<T>,      false,      false, false},
      {PoissonMethod::fft,    make_fft<T>,       false,      false, true},
  };
  for (const MethodEntry<T>& m : table)
    if (m.id == id) return m;
  throw Error("internal: no Poisson method " + std::string(to_string(id)));
}

template const MethodEntry<float>& method_entry(PoissonMethod);
template const MethodEntry<double>& method_entry(PoissonMethod);

}  // namespace strata::poisson
