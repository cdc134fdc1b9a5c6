// Weighted Jacobi sweeps on the error equation, the residual checked every 10 sweeps (and
// at max_iter); the damping is the operator's best unless given.
#include <utility>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/method.hpp"
#include "solvers/poisson/operator.hpp"

namespace strata::poisson {

namespace {

template <class T>
class JacobiSweeps final : public Method<T> {
public:
  explicit JacobiSweeps(const Solve<T>& S)
      : omega_(S.o.jacobi_omega > 0 ? S.o.jacobi_omega : best_jacobi_omega(symbol_bounds(S.a, S.o.bc.kind, S.n))) {}

  Stop run(Solve<T>& S) override {
    Field<T> e2(S.n, 1, S.mem), r(S.n, 1, S.mem);
    fill(S.e, T(0), S.s);
    for (;;) {
      ++S.it;
      S.fill_error_ghosts(S.e);
      jacobi(S.a, omega_, S.e, S.r0, e2, S.s);
      std::swap(S.e, e2);
      if (S.it % 10 == 0 || S.it >= S.o.max_iter) {
        S.fill_error_ghosts(S.e);
        residual(S.a, S.e, S.r0, r, S.s);
        if (S.record(norm2(r, S.s), [&] { return S.norm_with(S.e); })) return S.mon->reason();
      }
    }
  }

  // A sweep reads e and r0 and writes the new e (3 values a point); a check's residual
  // reads e and r0, writes r and reads it back for the norm (4).
  double bytes(const Solve<T>& S) const override { return S.grid_bytes(3.0 * S.it + 4.0 * S.records); }

private:
  double omega_;
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_jacobi(Solve<T>& S) {
  return std::make_unique<JacobiSweeps<T>>(S);
}

template std::unique_ptr<Method<float>> make_jacobi(Solve<float>&);
template std::unique_ptr<Method<double>> make_jacobi(Solve<double>&);

}  // namespace strata::poisson
