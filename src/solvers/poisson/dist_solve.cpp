// dist::solve_poisson: checks what the distributed path runs, then the one solve (solve.cpp's
// run) on DistField vectors: the same monitor, restarts and report as one process.
#include <string>

#include "solvers/poisson/method.hpp"
#include "strata/dist_poisson.hpp"
#include "strata/error.hpp"

namespace strata::dist {

std::string poisson_unsupported(const PoissonOptions& o, const ProcessGrid& grid, Extent global) {
  if (o.method != PoissonMethod::mg && o.method != PoissonMethod::cg && o.method != PoissonMethod::mgcg)
    return "the " + std::string(to_string(o.method)) + " solver runs on one process only: the distributed "
           "solver (process grid " + grid.str() + ") takes --solver mg, cg or mgcg";
  if (o.op != PoissonOperator::fd7)
    return "the " + std::string(to_string(o.op)) + " operator runs on one process only: the distributed "
           "solver (process grid " + grid.str() + ") takes --operator fd7";
  if (o.gather_below < 0) return "the gather threshold must be >= 0 points (0: the default)";
  try {
    grid.require_fits(global, Job::get().size(), 1, "the Poisson solve");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

template <class T>
PoissonReport solve_poisson(const PoissonOptions& o, const DistField<T>& f, DistField<T>& u) {
  require(f.global() == u.global() && f.grid().dims == u.grid().dims,
          "dist::solve_poisson: f and u must be distributed alike");
  require(f.local().memory() == u.local().memory(), "dist::solve_poisson: f and u must share memory");
  require(u.local().ghost() >= 1, "dist::solve_poisson: u needs at least one ghost layer");
  const Subdomain even = Subdomain::of(f.grid(), f.global(), Job::get().rank());
  require(f.box().offset == even.offset && u.box().offset == even.offset && f.box().local == even.local,
          "dist::solve_poisson: f and u must have the near-equal boxes of DistField(global, grid)");
  const std::string why = poisson_unsupported(o, f.grid(), f.global());
  require(why.empty(), why);
  poisson::validate(o, f.global(), f.local().memory());
  poisson::Solve<T, DistField<T>> solve(o, f, u);
  return poisson::run(solve);
}

template PoissonReport solve_poisson(const PoissonOptions&, const DistField<float>&, DistField<float>&);
template PoissonReport solve_poisson(const PoissonOptions&, const DistField<double>&, DistField<double>&);

}  // namespace strata::dist
