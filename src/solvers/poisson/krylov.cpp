// Conjugate gradients on A e = r0: plain (cg), or preconditioned by one V-cycle from zero
// (mgcg), the cycle in float under a double CG when mixed precision is asked for. The
// recursive residual is the one recorded; solve.cpp restarts from the recomputed one.
#include <string>
#include <type_traits>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/method.hpp"
#include "solvers/poisson/multigrid_cycle.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {

// CG's four vectors, made with the method in the solve's setup: a run (and a restart) reuses
// them. Made in the first run they were four allocations and, distributed, four fields' pack
// buffers inside the first iteration's time (on 4 x H200 at 511^3 that iteration took 11 ms
// of a 3.8 ms iteration on every solve, not only the first).
template <class V>
struct CgVectors {
  template <class Solve>
  explicit CgVectors(const Solve& S) : r(S.make()), p(S.make()), q(S.make()), z(S.make()) {}
  V r, p, q, z;
};

// One run of (preconditioned) CG; precondition(r, z) sets z = M^-1 r.
template <class T, class V, class Precondition>
Stop conjugate_gradients(Solve<T, V>& S, CgVectors<V>& w, const Precondition& precondition) {
  V &r = w.r, &p = w.p, &q = w.q, &z = w.z;
  copy_interior(S.r0, r, S.s);
  fill(S.e, T(0), S.s);
  precondition(r, z);
  copy_interior(z, p, S.s);
  double rz = dot(r, z, S.s);
  for (;;) {
    ++S.it;
    S.fill_error_ghosts(p);
    apply_interior(S.a, p, q, S.s);
    const double pq = dot(p, q, S.s);
    if (!(pq > 0))
      throw dist::AgreedError("conjugate gradients broke down at iteration " +
                              std::to_string(S.it) + ": p.Ap = " + std::to_string(pq) +
                              " (the operator or preconditioner is not positive definite, or the "
                              "arithmetic overflowed)");
    const double alpha = rz / pq;
    axpy(T(alpha), p, S.e, S.s);
    axpy(T(-alpha), q, r, S.s);
    if (S.singular) remove_mean(r, z, S.s);
    if (S.record(norm2(r, S.s), [&] { return S.norm_with(S.e); })) return S.mon->reason();
    precondition(r, z);
    const double rz_next = dot(r, z, S.s);
    axpby(T(1), z, T(rz_next / rz), p, S.s);
    rz = rz_next;
  }
}

// An iteration: A p (3 values a point), p.q (2), two axpys (3 each); after every iteration
// but a run's last, the new direction: r.z (2), axpby (3) and z (1). The preconditioner's
// cycles count their own passes.
template <class T, class V>
double cg_bytes(const Solve<T, V>& S) {
  return S.grid_bytes((3 + 2 + 3 + 3) * double(S.it) + (2 + 3 + 1) * double(S.it - S.runs));
}

template <class T, class V>
class PlainCg final : public Method<T, V> {
 public:
  explicit PlainCg(Solve<T, V>& S) : w_(S) {}
  Stop run(Solve<T, V>& S) override {
    return conjugate_gradients(S, w_, [&](const V& r, V& z) { copy_interior(r, z, S.s); });
  }
  double bytes(const Solve<T, V>& S) const override { return cg_bytes(S); }

 private:
  CgVectors<V> w_;
};

// CG in T preconditioned by a V-cycle in P (P = T, or float under double).
template <class T, class V, class P>
class MultigridCg final : public Method<T, V> {
 public:
  explicit MultigridCg(Solve<T, V>& S) : mg_(S), w_(S) {
    // The first cycle initialises its kernels and its exchanges' sizes and is captured as
    // a graph: in the setup, on a zero right-hand side, not inside the first iteration.
    if (S.mem == Memory::device) {
      auto& L0 = mg_.H.levels[0];
      fill(L0.f, P(0), S.s);
      fill(L0.u, P(0), S.s);
      mg_.prime();
      // And the outer CG's own first steps, once, on zeros: its ghost exchange, operator pass,
      // reductions and update (their first calls start kernels and reduction scratch; at 4
      // ranks the first solve's first iteration still took 5.8-6.2 ms against 4.0 on a
      // second solve). The vectors are set anew at each run.
      fill(w_.p, T(0), S.s);
      S.fill_error_ghosts(w_.p);
      apply_interior(S.a, w_.p, w_.q, S.s);
      axpy(T(0), w_.p, w_.q, S.s);
      (void)dot(w_.p, w_.q, S.s);
      (void)norm2(w_.q, S.s);
    }
  }

  Stop run(Solve<T, V>& S) override {
    return conjugate_gradients(S, w_, [&](const V& r, V& z) {
      auto& L0 = mg_.H.levels[0];
      if constexpr (std::is_same_v<P, T>)
        copy_interior(r, L0.f, S.s);
      else
        convert(r, L0.f, S.s);
      fill(L0.u, P(0), S.s);
      mg_.vcycle();
      if constexpr (std::is_same_v<P, T>)
        copy_interior(L0.u, z, S.s);
      else
        convert(L0.u, z, S.s);
    });
  }
  double bytes(const Solve<T, V>& S) const override { return cg_bytes(S) + mg_.bytes(); }
  std::vector<PoissonLevelInfo> levels(const Solve<T, V>&) const override { return mg_.levels(); }
  std::vector<std::pair<std::string, double>> level_ms() const override { return mg_.level_ms(); }

 private:
  MultigridCycle<P, V> mg_;
  CgVectors<V> w_;
};

}  // namespace

template <class T, class V>
std::unique_ptr<Method<T, V>> make_cg(Solve<T, V>& S) {
  return std::make_unique<PlainCg<T, V>>(S);
}

template <class T, class V>
std::unique_ptr<Method<T, V>> make_mgcg(Solve<T, V>& S) {
  if constexpr (std::is_same_v<T, double>)
    if (S.o.mixed_precision) return std::make_unique<MultigridCg<double, V, float>>(S);
  return std::make_unique<MultigridCg<T, V, T>>(S);
}

#define STRATA_INSTANTIATE(T, V)                                \
  template std::unique_ptr<Method<T, V>> make_cg(Solve<T, V>&); \
  template std::unique_ptr<Method<T, V>> make_mgcg(Solve<T, V>&);
STRATA_INSTANTIATE(float, Field<float>)
STRATA_INSTANTIATE(double, Field<double>)
STRATA_INSTANTIATE(float, dist::DistField<float>)
STRATA_INSTANTIATE(double, dist::DistField<double>)
#undef STRATA_INSTANTIATE

}  // namespace strata::poisson
