// Multigrid as a solver (mg, fmg): V-cycles on the error equation, the first pass a full
// multigrid one for fmg; after each, the residual from the finest level's fields. Near the
// rounding floor the monitor also follows the residual's smooth part (what the next level
// sees), which keeps falling while the smooth error does.
#include <functional>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/method.hpp"
#include "solvers/poisson/multigrid_cycle.hpp"

namespace strata::poisson {

namespace {

template <class T, class V>
class VCycles final : public Method<T, V> {
public:
  explicit VCycles(Solve<T, V>& S) : fmg_(S.o.method == PoissonMethod::fmg), mg_(S, fmg_cycles(S.o)) {}

  Stop run(Solve<T, V>& S) override {
    auto& H = mg_.H;
    auto& L0 = H.levels[0];
    copy_interior(S.r0, L0.f, S.s);
    fill(L0.u, T(0), S.s);
    for (;;) {
      ++S.it;
      if (S.it == 1 && fmg_) mg_.M.fmg();
      else mg_.vcycle();
      H.ghosts(L0, L0.u, S.s);
      residual(L0.a, L0.u, L0.f, L0.r, S.s);
      // The residual's smooth part, restricted into the coarse f (free between cycles).
      std::function<double()> smooth;
      if (H.levels.size() > 1)
        smooth = [&] {
          H.restrict_to(0, L0.r, H.levels[1].f, S.s);
          ++smooth_checks_;
          return norm2(H.levels[1].f, S.s);
        };
      if (S.record(norm2(L0.r, S.s), [&] { return S.norm_with(L0.u); }, smooth)) break;
    }
    copy_interior(L0.u, S.e, S.s);
    return S.mon->reason();
  }

  // Each iteration's residual reads u and f, writes r and reads it back (4 values a point);
  // a smooth-part check restricts r (1 + 1/8); the cycles count their own passes.
  double bytes(const Solve<T, V>& S) const override {
    return S.grid_bytes(4.0 * S.records + 1.125 * smooth_checks_) + mg_.bytes();
  }
  std::vector<PoissonLevelInfo> levels(const Solve<T, V>&) const override { return mg_.levels(); }
  std::vector<std::pair<std::string, double>> level_ms() const override { return mg_.level_ms(); }

private:
  // V-cycles per level in FMG: 2 for fd7, 1 for fe27 unless given (what reaches the
  // discretisation error, measured).
  static int fmg_cycles(const PoissonOptions& o) {
    return o.fmg_cycles > 0 ? o.fmg_cycles : (o.op == PoissonOperator::fd7 ? 2 : 1);
  }

  bool fmg_;
  MultigridCycle<T, V> mg_;
  long smooth_checks_ = 0;
};

}  // namespace

template <class T, class V>
std::unique_ptr<Method<T, V>> make_multigrid(Solve<T, V>& S) {
  return std::make_unique<VCycles<T, V>>(S);
}

template std::unique_ptr<Method<float>> make_multigrid(Solve<float>&);
template std::unique_ptr<Method<double>> make_multigrid(Solve<double>&);
template std::unique_ptr<Method<float, dist::DistField<float>>> make_multigrid(Solve<float, dist::DistField<float>>&);
template std::unique_ptr<Method<double, dist::DistField<double>>> make_multigrid(Solve<double, dist::DistField<double>>&);

}  // namespace strata::poisson
