// solve_poisson: validates the request, turns it into the error equation A e = r0 with
// homogeneous boundary conditions, runs the chosen method with residual checks after every
// iteration (divergence and stagnation end the run with a message, max_iter always ends
// it), and writes u = u0 + e back with the report.
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include "core/poisson/fft.hpp"
#include "core/poisson/multigrid.hpp"
#include "core/poisson/operator.hpp"
#include "core/runtime.hpp"
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
  require(o.rtol > 0 && std::isfinite(o.rtol) && o.rtol < 1, "--rtol must be in (0, 1)");
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

// Mean of the interior (for the null space of Neumann and periodic problems).
template <class T>
double mean(const Field<T>& f, Stream s) {
  return sum(f, s) / double(f.extent().points());
}

// f - mean(f) into dst, using `tmp` for the constant.
template <class T>
void remove_mean(Field<T>& v, Field<T>& tmp, Stream s) {
  const double m = mean(v, s);
  fill(tmp, T(m), s);
  axpy(T(-1), tmp, v, s);
}

template <class T>
struct Solve {
  const PoissonOptions& o;
  PoissonReport& rep;
  Stream s;
  double fnorm = 1;
  bool singular = false;
  int stagnant = 0;

  // Records one iteration's residual; returns true when the run should stop.
  bool record(int it, double rnorm) {
    const double rel = rnorm / fnorm;
    const double prev = rep.residuals.back();
    rep.residuals.push_back(rel);
    rep.iterations = it;
    if (o.on_iteration) o.on_iteration({it, rel, prev > 0 ? rel / prev : 0});
    if (!std::isfinite(rel))
      throw Error("the solve diverged at iteration " + std::to_string(it) +
                  ": the residual is not a finite number (NaN or Inf)");
    if (rel > 1e6 * std::max(rep.residuals.front(), 1e-300))
      throw Error("the solve diverged at iteration " + std::to_string(it) + ": the relative residual grew to " +
                  std::to_string(rel) + " from " + std::to_string(rep.residuals.front()));
    if (rel <= o.rtol) {
      rep.converged = true;
      rep.message = "converged: relative residual " + sci(rel) + " <= rtol " + sci(o.rtol);
      return true;
    }
    // Stagnation: five iterations that together gained less than 1%.
    stagnant = rel > 0.99 * prev ? stagnant + 1 : 0;
    if (stagnant >= 5) {
      rep.message = "stagnated at relative residual " + sci(rel) + " after " + std::to_string(it) +
                    " iterations, above rtol " + sci(o.rtol) + ": " + limit_hint();
      return true;
    }
    if (it >= o.max_iter) {
      rep.message = "stopped at --max-iter " + std::to_string(o.max_iter) + " with relative residual " +
                    sci(rel) + " > rtol " + sci(o.rtol) +
                    (rel < 1e3 * std::numeric_limits<T>::epsilon() ? ": " + limit_hint() : "");
      return true;
    }
    return false;
  }

  std::string limit_hint() const {
    return std::string("this is near what ") + (sizeof(T) == 4 ? "fp32" : "fp64") +
           " arithmetic can resolve for this grid (the residual of the rounded solution); "
           "use --precision f64 or a larger --rtol";
  }
  static std::string sci(double v) {
    std::ostringstream os;
    os.precision(3);
    os << std::scientific << v;
    return os.str();
  }
};

}  // namespace

template <class T>
PoissonReport solve_poisson(const PoissonOptions& o, const Field<T>& f, Field<T>& u) {
  require(!f.empty() && !u.empty(), "solve_poisson: empty field");
  require(f.extent() == u.extent(), "solve_poisson: f is " + f.extent().str() + " but u is " + u.extent().str());
  require(f.memory() == u.memory(), "solve_poisson: f and u must both be host or both device fields");
  require(u.ghost() >= 1, "solve_poisson: u needs at least one ghost layer");
  const Extent n = f.extent();
  const Memory mem = f.memory();
  validate(o, n, mem);
  const double h = o.h > 0 ? o.h : poisson_spacing(o.bc, n.nx);
  const Stencil a = poisson_stencil(o.op, h);

  PoissonReport rep;
  StreamHolder sh(mem);
  const Stream s = sh.stream();
  const auto t_setup = Clock::now();

  Solve<T> S{o, rep, s};
  S.singular = o.bc.kind != BoundaryKind::dirichlet;

  // The right-hand side (compatible on null spaces) and the initial residual r0.
  Field<T> rhs(n, 1, mem), r0(n, 1, mem);
  copy_interior(f, rhs, s);
  if (S.singular) {
    remove_mean(rhs, r0, s);
  }
  fill_ghosts(u, o.bc, 1, s);
  poisson::residual(a, u, rhs, r0, s);
  S.fnorm = norm2(rhs, s);
  const double r0norm = norm2(r0, s);
  if (!(S.fnorm > 0)) S.fnorm = r0norm > 0 ? r0norm : 1.0;  // f = 0: relative to the start

  const bool mg = o.method == PoissonMethod::mg || o.method == PoissonMethod::fmg ||
                  o.method == PoissonMethod::mgcg;
  std::optional<poisson::Hierarchy<T>> H;
  std::optional<poisson::Hierarchy<float>> Hf;  // mixed precision preconditioner
  const bool mixed = o.mixed_precision && o.method == PoissonMethod::mgcg && sizeof(T) == 8;
  if (mg && !mixed) {
    H.emplace(poisson::build_hierarchy<T>(o.op, o.bc.kind, n, h, mem, o.jacobi_omega));
    for (const auto& L : H->levels) rep.levels.push_back({L.n, L.h});
  } else if (mixed) {
    Hf.emplace(poisson::build_hierarchy<float>(o.op, o.bc.kind, n, h, mem, o.jacobi_omega));
    for (const auto& L : Hf->levels) rep.levels.push_back({L.n, L.h});
  } else {
    rep.levels.push_back({n, {h, h, h}});
  }
  runtime::stream_synchronize(s.handle);
  rep.setup_ms = ms_since(t_setup);

  const auto t_solve = Clock::now();
  double bytes = 0;
  const double N = double(n.points()), b = sizeof(T);
  rep.residuals.push_back(r0norm / S.fnorm);
  Field<T> e(n, 1, mem);  // the correction: u = u0 + e

  if (rep.residuals.front() <= o.rtol) {
    rep.converged = true;
    rep.message = "the initial guess already meets rtol";
  } else if (o.method == PoissonMethod::fft) {
    poisson::fft_solve(h, r0, e, s);
    bytes += 6 * N * b;
    Field<T> r(n, 1, mem);
    fill_ghosts(e, Boundary::periodic(), 1, s);
    poisson::residual(a, e, r0, r, s);
    S.record(1, norm2(r, s));
  } else if (o.method == PoissonMethod::jacobi) {
    // Weighted Jacobi sweeps on the error equation; the residual is checked every 10 sweeps.
    const poisson::SymbolBounds sb = poisson::symbol_bounds(a, o.bc.kind, n);
    const double omega = o.jacobi_omega > 0 ? o.jacobi_omega : poisson::best_jacobi_omega(sb);
    const Boundary hb = o.bc.kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0) : o.bc;
    Field<T> e2(n, 1, mem), r(n, 1, mem);
    for (int it = 1;; ++it) {
      if (hb.kind != BoundaryKind::dirichlet) fill_ghosts(e, hb, 1, s);
      poisson::jacobi(a, omega, e, r0, e2, s);
      std::swap(e, e2);
      bytes += 3 * N * b;
      if (it % 10 == 0 || it >= o.max_iter) {
        if (hb.kind != BoundaryKind::dirichlet) fill_ghosts(e, hb, 1, s);
        poisson::residual(a, e, r0, r, s);
        bytes += 4 * N * b;
        if (S.record(it, norm2(r, s))) break;
      }
    }
  } else if (o.method == PoissonMethod::mg || o.method == PoissonMethod::fmg) {
    const int fmg_cycles = o.fmg_cycles > 0 ? o.fmg_cycles : (o.op == PoissonOperator::fd7 ? 2 : 1);
    poisson::Multigrid<T> M(*H, o.smoother, o.pre, o.post, s, fmg_cycles);
    poisson::Level<T>& L0 = H->levels[0];
    copy_interior(r0, L0.f, s);
    fill(L0.u, T(0), s);
    GraphHolder graph;
    for (int it = 1;; ++it) {
      if (it == 1 && o.method == PoissonMethod::fmg) {
        M.fmg();
      } else if (graph.exec) {
        runtime::graph_launch(graph.exec, s.handle);
      } else {
        M.vcycle(0);
        // After one eager cycle (every kernel initialised), capture the next for replay.
        if (mem == Memory::device && o.use_graphs)
          graph.exec = runtime::graph_capture(s.handle, [&] { M.vcycle(0); });
      }
      if (H->bc.kind != BoundaryKind::dirichlet) fill_ghosts(L0.u, H->bc, 1, s);
      poisson::residual(L0.a, L0.u, L0.f, L0.r, s);
      if (S.record(it, norm2(L0.r, s))) break;
    }
    copy_interior(L0.u, e, s);
    bytes += M.bytes() + rep.iterations * 4 * N * b;
  } else {
    // Conjugate gradients on A e = r0, optionally preconditioned by one V-cycle.
    const Boundary hb = o.bc.kind == BoundaryKind::dirichlet ? Boundary::dirichlet(0) : o.bc;
    Field<T> r(n, 1, mem), p(n, 1, mem), q(n, 1, mem), z(n, 1, mem), tmp(n, 1, mem);
    copy_interior(r0, r, s);
    std::optional<poisson::Multigrid<T>> M;
    std::optional<poisson::Multigrid<float>> Mf;
    if (H) M.emplace(*H, o.smoother, o.pre, o.post, s);
    if (Hf) Mf.emplace(*Hf, o.smoother, o.pre, o.post, s);
    GraphHolder graph;
    auto precondition = [&] {  // z = M^-1 r
      if (M) {
        copy_interior(r, H->levels[0].f, s);
        fill(H->levels[0].u, T(0), s);
        if (graph.exec) runtime::graph_launch(graph.exec, s.handle);
        else M->vcycle(0);
        copy_interior(H->levels[0].u, z, s);
      } else if (Mf) {
        if constexpr (!std::is_same_v<T, float>) {  // mixed precision: double CG, float V-cycle
          poisson::convert(r, Hf->levels[0].f, s);
          fill(Hf->levels[0].u, 0.0f, s);
          if (graph.exec) runtime::graph_launch(graph.exec, s.handle);
          else Mf->vcycle(0);
          poisson::convert(Hf->levels[0].u, z, s);
        }
      } else {
        copy_interior(r, z, s);
      }
      if (!graph.exec && mem == Memory::device && o.use_graphs && (M || Mf))
        graph.exec = runtime::graph_capture(s.handle, [&] {
          if (M) M->vcycle(0);
          else Mf->vcycle(0);
        });
    };
    precondition();
    copy_interior(z, p, s);
    double rz = dot(r, z, s);
    for (int it = 1;; ++it) {
      if (hb.kind != BoundaryKind::dirichlet) fill_ghosts(p, hb, 1, s);
      apply_interior(a, p, q, s);
      const double pq = dot(p, q, s);
      if (!(pq > 0))
        throw Error("conjugate gradients broke down at iteration " + std::to_string(it) +
                    ": p.Ap = " + std::to_string(pq) + " (the operator or preconditioner is not positive definite, or the arithmetic overflowed)");
      const double alpha = rz / pq;
      axpy(T(alpha), p, e, s);
      axpy(T(-alpha), q, r, s);
      if (S.singular) remove_mean(r, tmp, s);
      bytes += (3 + 2 + 3 + 3) * N * b;
      if (S.record(it, norm2(r, s))) break;
      precondition();
      const double rz_next = dot(r, z, s);
      axpby(T(1), z, T(rz_next / rz), p, s);
      rz = rz_next;
      bytes += (2 + 3 + 1) * N * b;
    }
    if (M) bytes += M->bytes();
    if (Mf) bytes += Mf->bytes();
  }

  // u = u0 + e; on null spaces, the zero-mean representative.
  axpy(T(1), e, u, s);
  Field<T> r(n, 1, mem);
  if (S.singular) remove_mean(u, r, s);
  // The final residual, from scratch with the user's boundary values.
  fill_ghosts(u, o.bc, 1, s);
  poisson::residual(a, u, rhs, r, s);
  rep.rel_residual = norm2(r, s) / S.fnorm;
  runtime::stream_synchronize(s.handle);
  rep.solve_ms = ms_since(t_solve);

  const int its = std::max(rep.iterations, 1);
  rep.iterations_per_s = rep.iterations / (rep.solve_ms * 1e-3);
  rep.gb_per_s = bytes / (rep.solve_ms * 1e-3) / 1e9;
  if (rep.residuals.size() > 1 && rep.residuals.front() > 0 && rep.residuals.back() > 0)
    rep.convergence_factor = std::pow(rep.residuals.back() / rep.residuals.front(), 1.0 / its);
  if (rep.message.empty()) rep.message = rep.converged ? "converged" : "stopped";
  return rep;
}

template PoissonReport solve_poisson(const PoissonOptions&, const Field<float>&, Field<float>&);
template PoissonReport solve_poisson(const PoissonOptions&, const Field<double>&, Field<double>&);

}  // namespace strata
