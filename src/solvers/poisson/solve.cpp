// solve_poisson: validates the request and runs the chosen method on the error equation
// A e = r0 with homogeneous boundary conditions (only r0 = f - A u0 sees the user's
// boundary values). Convergence is decided on the residual of u = u0 + e recomputed from
// scratch: when the method's own residual meets the tolerance and the recomputed one does
// not (CG's recursive residual drifts from the true one; r0 carries the rounding of A u0),
// the method starts again from the recomputed residual, a few times while that still
// falls. When to stop and the words that say why: solvers/poisson/monitor.hpp.
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "dispatch/fft.hpp"
#include "solvers/poisson/monitor.hpp"
#include "solvers/poisson/multigrid.hpp"
#include "solvers/poisson/operator.hpp"
#include "base/runtime.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Restarts from the recomputed residual after the method's own met the tolerance: enough
// for CG's drift and r0's rounding; beyond that the recomputed residual is at its floor.
constexpr int kMaxRestarts = 3;

// Owns a private stream for device solves (null on the host).
struct StreamHolder {
  explicit StreamHolder(Memory m) : handle(m == Memory::device ? runtime::stream_create() : nullptr) {}
  ~StreamHolder() { runtime::stream_destroy(handle); }
  StreamHolder(const StreamHolder&) = delete;
  StreamHolder& operator=(const StreamHolder&) = delete;
  Stream stream() const { return Stream{handle}; }
  void* handle;
};

struct GraphHolder {
  ~GraphHolder() { runtime::graph_destroy(exec); }
  void* exec = nullptr;
};

void validate(const PoissonOptions& o, Extent n, Memory mem) {
  require(o.pre >= 0 && o.post >= 0 && o.pre + o.post >= 1 && o.pre <= 32 && o.post <= 32,
          "smoothing steps must satisfy 0 <= pre, post <= 32 and pre + post >= 1");
  require(std::isfinite(o.rtol) && o.rtol < 1, "--rtol must be in [0, 1) (or negative for the default)");
  require(std::isfinite(o.atol) && o.atol >= 0, "--atol must be a finite number >= 0");
  require(o.rtol != 0 || o.atol > 0, "--rtol 0 needs a positive --atol: give a tolerance to reach");
  require(o.max_iter >= 1, "--max-iter must be >= 1");
  require(o.h >= 0 && std::isfinite(o.h), "the grid spacing must be positive (or 0 for automatic)");
  require(o.jacobi_omega >= 0 && o.jacobi_omega < 2, "the Jacobi damping must be in (0, 2)");
  require(o.fmg_cycles >= 0 && o.fmg_cycles <= 8, "FMG cycles per level must be in 0..8 (0: automatic)");
  if (o.method == PoissonMethod::fft) {
    require(o.bc.kind == BoundaryKind::periodic && o.op == PoissonOperator::fd7,
            "the fft solver solves the periodic 7-point problem only (--bc periodic --operator fd7)");
    require(mem == Memory::device, "the fft solver runs on the GPU (cuFFT): use --device cuda");
  }
  if (o.bc.kind == BoundaryKind::periodic)
    require(n.nx >= 2 && n.ny >= 2 && n.nz >= 2, "a periodic grid needs at least 2 points per axis");
}

// v - mean(v) in place, using `tmp` for the constant.
template <class T>
void remove_mean(Field<T>& v, Field<T>& tmp, Stream s) {
  fill(tmp, T(sum(v, s) / double(v.extent().points())), s);
  axpy(T(-1), tmp, v, s);
}

template <class T>
class Solver {
public:
  Solver(const PoissonOptions& o, const Field<T>& f, Field<T>& u)
      : o_(o), u_(u), n_(f.extent()), mem_(f.memory()), h_(o.h > 0 ? o.h : poisson_spacing(o.bc, n_.nx)),
        a_(poisson_stencil(o.op, h_)), hb_(o.bc.kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0) : o.bc),
        sh_(mem_), s_(sh_.stream()), singular_(o.bc.kind != BoundaryKind::dirichlet), rhs_(n_, 1, mem_),
        r0_(n_, 1, mem_), e_(n_, 1, mem_), tmp_(n_, 1, mem_) {
    copy_interior(f, rhs_, s_);
    if (singular_) remove_mean(rhs_, tmp_, s_);  // the compatible right-hand side
  }

  PoissonReport run();

private:
  poisson::Stop jacobi();
  poisson::Stop multigrid();
  poisson::Stop conjugate_gradients();
  void fill_error_ghosts(Field<T>& v) {
    if (hb_.kind != BoundaryKind::dirichlet) fill_ghosts(v, hb_, 1, s_);
  }
  // ||u + e|| for the floor test (e: the correction so far).
  double norm_with(const Field<T>& e) {
    copy_interior(u_, tmp_, s_);
    axpy(T(1), e, tmp_, s_);
    return norm2(tmp_, s_);
  }
  // r0 = f - A u from scratch, with the user's boundary values; returns its norm.
  double recompute_residual() {
    fill_ghosts(u_, o_.bc, 1, s_);
    poisson::residual(a_, u_, rhs_, r0_, s_);
    return norm2(r0_, s_);
  }

  const PoissonOptions& o_;
  Field<T>& u_;
  Extent n_;
  Memory mem_;
  double h_;
  Stencil a_;
  Boundary hb_;  // the boundary condition of the error equation
  StreamHolder sh_;
  Stream s_;
  bool singular_;
  Field<T> rhs_, r0_, e_, tmp_;
  PoissonReport rep_;
  std::optional<poisson::Monitor> mon_;
  std::optional<poisson::Hierarchy<T>> H_;
  std::optional<poisson::Hierarchy<float>> Hf_;  // mixed precision preconditioner
  std::optional<poisson::Multigrid<T>> M_;
  std::optional<poisson::Multigrid<float>> Mf_;
  GraphHolder graph_;
  int it_ = 0;
  double bytes_ = 0;
};

// Weighted Jacobi sweeps on the error equation; the residual is checked every 10 sweeps.
template <class T>
poisson::Stop Solver<T>::jacobi() {
  const double omega = o_.jacobi_omega > 0 ? o_.jacobi_omega
                                           : poisson::best_jacobi_omega(poisson::symbol_bounds(a_, o_.bc.kind, n_));
  const double N = double(n_.points()), b = sizeof(T);
  Field<T> e2(n_, 1, mem_), r(n_, 1, mem_);
  fill(e_, T(0), s_);
  for (;;) {
    ++it_;
    fill_error_ghosts(e_);
    poisson::jacobi(a_, omega, e_, r0_, e2, s_);
    std::swap(e_, e2);
    bytes_ += 3 * N * b;
    if (it_ % 10 == 0 || it_ >= o_.max_iter) {
      fill_error_ghosts(e_);
      poisson::residual(a_, e_, r0_, r, s_);
      bytes_ += 4 * N * b;
      if (mon_->record(it_, norm2(r, s_), [&] { return norm_with(e_); })) return mon_->reason();
    }
  }
}

// V-cycles on the error equation, the first pass a full multigrid one for fmg.
template <class T>
poisson::Stop Solver<T>::multigrid() {
  poisson::Level<T>& L0 = H_->levels[0];
  copy_interior(r0_, L0.f, s_);
  fill(L0.u, T(0), s_);
  for (;;) {
    ++it_;
    if (it_ == 1 && o_.method == PoissonMethod::fmg) {
      M_->fmg();
    } else if (graph_.exec) {
      runtime::graph_launch(graph_.exec, s_.handle);
    } else {
      M_->vcycle(0);
      // After one eager cycle (every kernel initialised), capture the next for replay.
      if (mem_ == Memory::device && o_.use_graphs) graph_.exec = runtime::graph_capture(s_.handle, [&] { M_->vcycle(0); });
    }
    if (H_->bc.kind != BoundaryKind::dirichlet) fill_ghosts(L0.u, H_->bc, 1, s_);
    poisson::residual(L0.a, L0.u, L0.f, L0.r, s_);
    bytes_ += 4.0 * n_.points() * sizeof(T);
    // The residual's smooth part, what the next level sees: at the floor it keeps falling
    // while the smooth error does (the coarse f is free between cycles).
    std::function<double()> smooth;
    if (H_->levels.size() > 1)
      smooth = [&] {
        poisson::restrict_to(L0.down, L0.r, H_->levels[1].f, s_);
        bytes_ += 1.125 * n_.points() * sizeof(T);
        return norm2(H_->levels[1].f, s_);
      };
    if (mon_->record(it_, norm2(L0.r, s_), [&] { return norm_with(L0.u); }, smooth)) break;
  }
  copy_interior(L0.u, e_, s_);
  return mon_->reason();
}

// Conjugate gradients on A e = r0, optionally preconditioned by one V-cycle.
template <class T>
poisson::Stop Solver<T>::conjugate_gradients() {
  const double N = double(n_.points()), b = sizeof(T);
  Field<T> r(n_, 1, mem_), p(n_, 1, mem_), q(n_, 1, mem_), z(n_, 1, mem_);
  copy_interior(r0_, r, s_);
  fill(e_, T(0), s_);
  auto precondition = [&] {  // z = M^-1 r
    if (M_) {
      copy_interior(r, H_->levels[0].f, s_);
      fill(H_->levels[0].u, T(0), s_);
      if (graph_.exec) runtime::graph_launch(graph_.exec, s_.handle);
      else M_->vcycle(0);
      copy_interior(H_->levels[0].u, z, s_);
    } else if (Mf_) {
      if constexpr (!std::is_same_v<T, float>) {  // mixed precision: double CG, float V-cycle
        poisson::convert(r, Hf_->levels[0].f, s_);
        fill(Hf_->levels[0].u, 0.0f, s_);
        if (graph_.exec) runtime::graph_launch(graph_.exec, s_.handle);
        else Mf_->vcycle(0);
        poisson::convert(Hf_->levels[0].u, z, s_);
      }
    } else {
      copy_interior(r, z, s_);
    }
    if (!graph_.exec && mem_ == Memory::device && o_.use_graphs && (M_ || Mf_))
      graph_.exec = runtime::graph_capture(s_.handle, [&] {
        if (M_) M_->vcycle(0);
        else Mf_->vcycle(0);
      });
  };
  precondition();
  copy_interior(z, p, s_);
  double rz = dot(r, z, s_);
  for (;;) {
    ++it_;
    fill_error_ghosts(p);
    apply_interior(a_, p, q, s_);
    const double pq = dot(p, q, s_);
    if (!(pq > 0))
      throw Error("conjugate gradients broke down at iteration " + std::to_string(it_) + ": p.Ap = " +
                  std::to_string(pq) +
                  " (the operator or preconditioner is not positive definite, or the arithmetic overflowed)");
    const double alpha = rz / pq;
    axpy(T(alpha), p, e_, s_);
    axpy(T(-alpha), q, r, s_);
    if (singular_) remove_mean(r, z, s_);
    bytes_ += (3 + 2 + 3 + 3) * N * b;
    if (mon_->record(it_, norm2(r, s_), [&] { return norm_with(e_); })) return mon_->reason();
    precondition();
    const double rz_next = dot(r, z, s_);
    axpby(T(1), z, T(rz_next / rz), p, s_);
    rz = rz_next;
    bytes_ += (2 + 3 + 1) * N * b;
  }
}

template <class T>
PoissonReport Solver<T>::run() {
  const auto t_setup = Clock::now();
  const double fnorm_raw = norm2(rhs_, s_);
  const double r0norm = recompute_residual();
  const double fnorm = fnorm_raw > 0 ? fnorm_raw : (r0norm > 0 ? r0norm : 1.0);  // f = 0: relative to the start
  rep_.rtol_default = o_.rtol < 0;
  rep_.rtol = rep_.rtol_default ? 1e-6 : o_.rtol;
  rep_.atol = o_.atol;
  rep_.direct = o_.method == PoissonMethod::fft;

  const bool mixed = o_.mixed_precision && o_.method == PoissonMethod::mgcg && sizeof(T) == 8;
  const bool mg = o_.method == PoissonMethod::mg || o_.method == PoissonMethod::fmg || o_.method == PoissonMethod::mgcg;
  const int fmg_cycles = o_.fmg_cycles > 0 ? o_.fmg_cycles : (o_.op == PoissonOperator::fd7 ? 2 : 1);
  if (mg && !mixed) {
    H_.emplace(poisson::build_hierarchy<T>(o_.op, o_.bc.kind, n_, h_, mem_, o_.jacobi_omega));
    M_.emplace(*H_, o_.smoother, o_.pre, o_.post, s_, fmg_cycles);
    for (const auto& L : H_->levels) rep_.levels.push_back({L.n, L.h});
  } else if (mixed) {
    Hf_.emplace(poisson::build_hierarchy<float>(o_.op, o_.bc.kind, n_, h_, mem_, o_.jacobi_omega));
    Mf_.emplace(*Hf_, o_.smoother, o_.pre, o_.post, s_);
    for (const auto& L : Hf_->levels) rep_.levels.push_back({L.n, L.h});
  } else {
    rep_.levels.push_back({n_, {h_, h_, h_}});
  }
  if (o_.method == PoissonMethod::fft) poisson::fft_prepare(r0_, e_);  // plans are setup, not solve
  runtime::stream_synchronize(s_.handle);
  rep_.setup_ms = ms_since(t_setup);

  const auto t_solve = Clock::now();
  poisson::MonitorSetup ms;
  ms.fnorm = fnorm;
  ms.target = std::max(rep_.rtol * fnorm, rep_.atol);
  ms.eps = std::numeric_limits<T>::epsilon();
  ms.coef_sum = poisson::coefficient_sum(a_);
  ms.max_iter = o_.max_iter;
  ms.fast = o_.method == PoissonMethod::mg || o_.method == PoissonMethod::fmg;
  ms.stationary = ms.fast || o_.method == PoissonMethod::jacobi;
  ms.precision = sizeof(T) == 4 ? "fp32" : "fp64";
  rep_.residuals.push_back(r0norm / fnorm);
  mon_.emplace(ms, rep_, o_.on_iteration);

  double rnorm = r0norm;
  bool converged = rnorm <= ms.target;
  while (!converged) {
    poisson::Stop stop = poisson::Stop::met;
    switch (o_.method) {
      case PoissonMethod::fft:  // a direct solve: one application of A^-1
        poisson::fft_solve(h_, r0_, e_, s_);
        rep_.iterations = ++it_;
        bytes_ += 6.0 * n_.points() * sizeof(T);
        break;
      case PoissonMethod::jacobi: stop = jacobi(); break;
      case PoissonMethod::mg:
      case PoissonMethod::fmg: stop = multigrid(); break;
      case PoissonMethod::cg:
      case PoissonMethod::mgcg: stop = conjugate_gradients(); break;
    }
    // u = u0 + e (the zero-mean representative on null spaces), its residual from scratch.
    axpy(T(1), e_, u_, s_);
    if (singular_) remove_mean(u_, tmp_, s_);
    const double previous = rnorm;
    rnorm = recompute_residual();
    if (rep_.direct) rep_.residuals.push_back(rnorm / fnorm);
    converged = rnorm <= ms.target;
    // The method's residual met the tolerance, the solution's did not: again from the
    // recomputed residual, while that still falls and is above the rounding floor.
    if (converged || stop != poisson::Stop::met || rep_.restarts >= kMaxRestarts || !(rnorm < 0.5 * previous) ||
        it_ >= o_.max_iter || rnorm <= mon_->floor(norm2(u_, s_)))
      break;
    ++rep_.restarts;
    mon_->restart(rnorm);
  }
  const double unorm = norm2(u_, s_);
  runtime::stream_synchronize(s_.handle);
  rep_.solve_ms = ms_since(t_solve);

  if (M_) bytes_ += M_->bytes();
  if (Mf_) bytes_ += Mf_->bytes();
  rep_.at_floor = mon_->at_floor(rnorm, unorm, rep_.direct);
  rep_.converged = converged || (rep_.rtol_default && rep_.at_floor);
  rep_.rel_residual = rnorm / fnorm;
  rep_.message = mon_->message(rnorm, unorm);
  rep_.iterations_per_s = rep_.iterations / (rep_.solve_ms * 1e-3);
  rep_.gb_per_s = bytes_ / (rep_.solve_ms * 1e-3) / 1e9;
  const double first = rep_.residuals.front(), last = rep_.residuals.back();
  if (!rep_.direct && rep_.iterations > 0 && first > 0 && last > 0)
    rep_.convergence_factor = std::pow(last / first, 1.0 / rep_.iterations);
  return rep_;
}

}  // namespace

template <class T>
PoissonReport solve_poisson(const PoissonOptions& o, const Field<T>& f, Field<T>& u) {
  require(!f.empty() && !u.empty(), "solve_poisson: empty field");
  require(f.extent() == u.extent(), "solve_poisson: f is " + f.extent().str() + " but u is " + u.extent().str());
  require(f.memory() == u.memory(), "solve_poisson: f and u must both be host or both device fields");
  require(u.ghost() >= 1, "solve_poisson: u needs at least one ghost layer");
  validate(o, f.extent(), f.memory());
  Solver<T> solver(o, f, u);
  return solver.run();
}

template PoissonReport solve_poisson(const PoissonOptions&, const Field<float>&, Field<float>&);
template PoissonReport solve_poisson(const PoissonOptions&, const Field<double>&, Field<double>&);

}  // namespace strata
