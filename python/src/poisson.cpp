// strata.poisson.solve's C++ side: options from keywords, the solve with the GIL released
// (each iteration calls back into Python for progress and Ctrl-C), the report as a dict
// that strata/poisson.py turns into a dataclass.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <memory>

#include "bindings.hpp"
#include "common.hpp"
#include "strata/poisson.hpp"

namespace strata::python {
namespace {

using namespace nb::literals;

struct Stopped {};  // thrown through the solver when a callback or Ctrl-C says stop

nb::dict report_dict(const PoissonReport& r) {
  nb::list levels;
  for (const PoissonLevelInfo& l : r.levels) levels.append(nb::make_tuple(l.n.nz, l.n.ny, l.n.nx));
  return make_dict("converged", r.converged, "direct", r.direct, "iterations", r.iterations,
                   "restarts", r.restarts, "at_floor", r.at_floor, "rtol", r.rtol, "atol", r.atol,
                   "rel_residual", r.rel_residual, "convergence_factor", r.convergence_factor,
                   "residuals", r.residuals, "setup_ms", r.setup_ms, "solve_ms", r.solve_ms,
                   "iterations_per_s", r.iterations_per_s, "gb_per_s", r.gb_per_s, "levels", levels,
                   "message", r.message, "rhs_mean", r.rhs_mean, "warnings", r.warnings);
}

template <class T>
nb::tuple solve(PoissonOptions o, const Operand& f, nb::handle f_obj, nb::handle on_iteration) {
  const Extent n =
      f.field ? f.field->as<T>().extent() : extent_3d(*f.array, "strata.poisson.solve", "f");
  std::optional<Field<T>> f_copy;
  if (!f.field) {
    f_copy.emplace(n, kDefaultGhost, f.memory);
    copy(wrap_dense<T>(*f.array, n, f.memory), *f_copy);
  }
  const Field<T>& rhs = f.field ? f.field->as<T>() : *f_copy;
  auto u = std::make_unique<Field<T>>(n, kDefaultGhost, f.memory);  // initial guess 0
  PyCallbacks py;
  o.on_iteration = [&](const PoissonIteration& it) {
    const bool stop = py.call([&] {
      if (!on_iteration.is_none())
        on_iteration(make_dict("iteration", it.iteration, "rel_residual", it.rel_residual, "factor",
                               it.factor));
    });
    if (stop) throw Stopped{};
  };
  PoissonReport report;
  try {
    nb::gil_scoped_release unlocked;
    report = solve_poisson(o, rhs, *u);
  } catch (const Stopped&) {
    py.rethrow();
  }
  if (f.field) return nb::make_tuple(PyField{std::move(*u)}, report_dict(report));
  nb::capsule owner(u.get(), [](void* p) noexcept { delete static_cast<Field<T>*>(p); });
  Field<T>& r = *u.release();
  return nb::make_tuple(view(r, owner, false, f_obj), report_dict(report));
}

nb::tuple py_solve(nb::handle f_obj, const std::string& bc, const std::string& solver, double rtol,
                   double atol, const std::string& op, int max_iter, const std::string& smoother,
                   bool mixed, double h, nb::handle on_iteration) {
  PoissonOptions o = poisson_options(bc, solver, rtol, atol, op, max_iter, smoother, mixed, h);
  if (!on_iteration.is_none() && !PyCallable_Check(on_iteration.ptr()))
    throw nb::type_error("strata.poisson.solve: on_iteration must be callable");
  const Operand f = operand(f_obj, "strata.poisson.solve", "f");
  if (mixed && (f.precision != Precision::f64 || o.method != PoissonMethod::mgcg))
    throw nb::value_error("strata.poisson.solve: mixed=True needs solver='mgcg' and float64");
  return f.precision == Precision::f32 ? solve<float>(o, f, f_obj, on_iteration)
                                       : solve<double>(o, f, f_obj, on_iteration);
}

}  // namespace

PoissonOptions poisson_options(const std::string& bc, const std::string& solver, double rtol,
                               double atol, const std::string& op, int max_iter,
                               const std::string& smoother, bool mixed, double h) {
  // Checked here in the keywords' words (the solver's own checks name the CLI's options).
  if (!(std::isfinite(rtol) && rtol < 1))
    throw nb::value_error(
        "strata.poisson: rtol must be a number in [0, 1), or negative for the default");
  if (!(std::isfinite(atol) && atol >= 0))
    throw nb::value_error("strata.poisson: atol must be a finite number >= 0");
  if (rtol == 0 && !(atol > 0))
    throw nb::value_error(
        "strata.poisson: rtol=0 needs a positive atol: give a tolerance to reach");
  if (max_iter < 1) throw nb::value_error("strata.poisson: max_iter must be >= 1");
  PoissonOptions o;
  o.bc = Boundary::parse(bc);
  o.method = parse_poisson_method(solver);
  o.rtol = rtol;  // < 0: the default
  o.atol = atol;
  o.op = parse_poisson_operator(op);
  o.max_iter = max_iter;
  o.smoother = parse_smoother(smoother);
  o.mixed_precision = mixed;
  o.h = h;
  if (o.method == PoissonMethod::fft &&
      (o.bc.kind != BoundaryKind::periodic || o.op != PoissonOperator::fd7))
    throw nb::value_error(
        "strata.poisson: solver='fft' solves the periodic 7-point problem only (bc='periodic', "
        "op='fd7')");
  return o;
}

void bind_poisson(nb::module_& m) {
  m.def("_poisson_solve", &py_solve, "f"_a, "bc"_a, "solver"_a, "rtol"_a, "atol"_a, "op"_a,
        "max_iter"_a, "smoother"_a, "mixed"_a, "h"_a, "on_iteration"_a.none(),
        "Solves -Lap(u) = f; returns (u, report dict). See strata.poisson.solve.");
}

}  // namespace strata::python
