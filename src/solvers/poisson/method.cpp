// The method table: each --solver, the maker that builds what it needs (jacobi and cg
// nothing; mg, fmg and mgcg a multigrid hierarchy, mgcg's in float under fp64 with
// --mixed; fft its FFT plans and spectrum) and how the monitor reads its residuals. Over
// several ranks mg, cg and mgcg run (fmg's coarse solves would differ from one process's).
#include "solvers/poisson/method.hpp"

#include <string>
#include <type_traits>

#include "strata/error.hpp"

namespace strata::poisson {

namespace {

// The makers of the methods that run on one process only (jacobi's sweeps are too slow to
// be worth partitioning, fft transforms the whole grid): none for DistField vectors.
template <class T, class V, class Make>
auto one_process(Make make) -> std::unique_ptr<Method<T, V>> (*)(Solve<T, V>&) {
  if constexpr (std::is_same_v<V, Field<T>>) return make;
  else return nullptr;
}

}  // namespace

template <class T, class V>
const MethodEntry<T, V>& method_entry(PoissonMethod id) {
  static const MethodEntry<T, V> table[] = {
      //                     make                                   stationary  fast   direct
      {PoissonMethod::jacobi, one_process<T, V>(make_jacobi<T>),     true,       false, false},
      {PoissonMethod::mg,     make_multigrid<T, V>,                  true,       true,  false},
      {PoissonMethod::fmg,    one_process<T, V>(make_multigrid<T, V>), true,     true,  false},
      {PoissonMethod::cg,     make_cg<T, V>,                         false,      false, false},
      {PoissonMethod::mgcg,   make_mgcg<T, V>,                       false,      false, false},
      {PoissonMethod::fft,    one_process<T, V>(make_fft<T>),        false,      false, true},
  };
  for (const MethodEntry<T, V>& m : table)
    if (m.id == id) return m;
  throw Error("internal: no Poisson method " + std::string(to_string(id)));
}

template const MethodEntry<float>& method_entry(PoissonMethod);
template const MethodEntry<double>& method_entry(PoissonMethod);
template const MethodEntry<float, dist::DistField<float>>& method_entry(PoissonMethod);
template const MethodEntry<double, dist::DistField<double>>& method_entry(PoissonMethod);

}  // namespace strata::poisson
