// CPU benchmark of repeated steps (bench/steps.hpp): apply_steps on host fields, one pass per
// step, host clock, against the CPU copy kernel of the same grid.
#include <limits>

#include "bench/steps.hpp"
#include "cpu/cpu.hpp"
#include "strata/apply.hpp"
#include "verify/stencil_check.hpp"
#include "strata/vector_ops.hpp"

namespace strata::bench {

namespace {

// kSteps heat steps by apply_steps against the same steps taken as plain passes of the
// public API (the stencil applied with the boundary's ghosts, then u += c A u). Returns ""
// when they agree to the steps' rounding bound, else what differs.
template <class T>
std::string check(const Stencil& s) {
  const Extent n = kStepsCheckShape;
  Field<T> steps(n, 8), plain(n, 8), lap(n, 8);
  steps_fill(steps, 17);
  copy(steps, plain);
  const StepOptions o = steps_options(1);
  apply_steps(s, steps, kStepsBoundary, kSteps, o);
  for (int t = 0; t < kSteps; ++t) {
    apply(s, plain, lap, kStepsBoundary);
    axpy(T(o.c), lap, plain);
  }
  const double tol = verify::steps_bound(s, o, kSteps, double(std::numeric_limits<T>::epsilon()));
  const double worst = verify::worst_relative(steps, plain);
  return worst <= tol ? "" : "apply_steps differs from plain passes by " + std::to_string(worst);
}

template <class T>
void run_precision(const Options& opt, Extent shape, std::vector<Result>& out) {
  Field<T> u(shape, 8), scratch(shape, 8);
  steps_fill(u, 0x5eed);
  Result ref = result_row("cpu", "copy", "ref", precision_of<T>, shape, 2.0 * sizeof(T));
  set_rates(ref, time_host([&] { cpu::copy_interior(u, scratch); }, opt.warmup, opt.reps));
  compare_to(ref, ref);  // the reference row reads ratio 1
  out.push_back(ref);
  for (const std::string& name : steps_stencils(opt)) {
    const Stencil s = steps_stencil(name);
    if (const std::string bad = check<T>(s); !bad.empty())
      throw Error("benchmark refused: steps " + name + " (" + to_string(precision_of<T>) +
                  "): " + bad);
    const StepOptions o = steps_options(1);
    const Timing t = time_host([&] { apply_steps(s, u, scratch, kStepsBoundary, kSteps, o); },
                               opt.warmup, opt.reps);
    out.push_back(steps_row(opt, "cpu", name, 1, precision_of<T>, shape, t, ref,
                            "against the same steps as plain stencil passes"));
  }
}

}  // namespace

std::vector<Result> steps_cpu(const Options& opt) {
  std::vector<Result> out;
  for_each_case(
      opt, {Extent{128, 128, 128}}, {Precision::f32, Precision::f64},
      [&](auto tag, const Extent& shape) { run_precision<decltype(tag)>(opt, shape, out); });
  return out;
}

}  // namespace strata::bench
