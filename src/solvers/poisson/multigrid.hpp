// V-cycles and full multigrid on a hierarchy, written once against the backend interface
// (dispatch/multigrid.hpp) and the public vector operations; the fields' memory decides
// whether the CPU or the GPU runs them. The hierarchy H says how a level's ghosts are
// filled, how the transfers reach the next level and how the coarsest is solved: one
// process (hierarchy.hpp) or many ranks (dist_hierarchy.hpp: halo exchanges, the coarse
// levels gathered whole to every rank); the smoothing and the cycle are the same. Every level's `u`
// names the same buffer after a cycle as before it, so a captured CUDA graph of one cycle
// can be replayed.
#pragma once

#include <cmath>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch/multigrid.hpp"
#include "solvers/poisson/cycle_marks.hpp"
#include "solvers/poisson/hierarchy.hpp"
#include "solvers/poisson/vec.hpp"
#include "strata/vector_ops.hpp"

namespace strata::poisson {

// Levels (a distributed level: boxes) of at least this many points smooth two steps in one
// fused pass where the backend has it (the CUDA temporal kernel), per precision, from
// `strata bench --kernel poisson` on the H100 (docs/performance.md, "Multigrid smoothing"):
// the smooth2_fd7 pairs, fused over single, fp64 1.45x at 511^3 and 1.06-1.13x down to
// 63^3; fp32 1.31x at 511^3, 1.23x at 511x511x256, 1.17x at 383^3, 1.14x at 319^3 (3.2e7
// points), 0.85x at 255^3 (1.7e7, whose fields nearly fit the 50 MB L2) and 0.62-0.87x below
// (cceb382); the V(2,2) cycles, fp64 fused on every level no faster than from 1.6e7 points
// (6.792 / 1.159 ms at 511^3 / 255^3, against 6.796 / 1.156 at 248f48c).
template <class T>
inline constexpr double kFusedSmoothingMinPoints = sizeof(T) == 8 ? 1.6e7 : 3e7;

template <class T, class H = Hierarchy<T>>
class Multigrid {
  using Lvl = typename std::remove_reference_t<decltype(std::declval<H&>().levels[0])>;

public:
  // fuse_min_points: the smallest level whose smoothing pairs take one fused pass (where the
  // hierarchy has it; kFusedSmoothingMinPoints<T> by default, infinity for single steps only).
  Multigrid(H& h, Smoother smoother, int pre, int post, Stream stream, int fmg_cycles = 1,
            double fuse_min_points = kFusedSmoothingMinPoints<T>)
      : H_(h), smoother_(smoother), pre_(pre), post_(post), s_(stream), fmg_cycles_(fmg_cycles),
        fuse_min_points_(fuse_min_points) {}

  // One V(pre, post) cycle improving levels[l].u for A u = levels[l].f.
  void vcycle(std::size_t l) {
    if (l == 0 && marks_) {
      marks_->begin();
      marks_->mark(s_);
    }
    Lvl& L = H_.levels[l];
    if (l + 1 == H_.levels.size()) {
      coarse_solve(L);
      if (marks_) marks_->mark(s_);
      return;
    }
    const bool flipped = smooth(L, pre_);
    const bool fused = H_.residual_restrict(l, s_);
    fill(H_.levels[l + 1].u, T(0), s_);
    if (marks_) marks_->mark(s_);
    vcycle(l + 1);
    H_.prolong_add(l, s_);
    if (smooth(L, post_) != flipped) restore(L);
    if (marks_) marks_->mark(s_);
    // residual and restriction (fused: u and f read; else r written and read back), the
    // coarse f written, the coarse u filled and read, u read and written by prolong_add
    count(L, (fused ? 2 : 4) + 2 + 0.375);
  }

  // Full multigrid from the finest right-hand side: restrict f to every level, solve the
  // coarsest, then interpolate up one level at a time with fmg_cycles V-cycles on each.
  void fmg() {
    for (std::size_t l = 0; l + 1 < H_.levels.size(); ++l)
      H_.restrict_to(l, H_.levels[l].f, H_.levels[l + 1].f, s_);
    Lvl& C = H_.levels.back();
    fill(C.u, T(0), s_);
    coarse_solve(C);
    for (std::size_t l = H_.levels.size() - 1; l-- > 0;) {
      Lvl& L = H_.levels[l];
      fill(L.u, T(0), s_);
      H_.prolong_add(l, s_);
      for (int c = 0; c < fmg_cycles_; ++c) vcycle(l);
      count(L, 1.25 + 1 + 2);
    }
  }

  double bytes() const { return bytes_; }
  // Marks between the levels' parts of each cycle from level 0 (a diagnostic; null: none).
  void set_marks(CycleMarks* marks) { marks_ = marks; }

private:
  void count(const Lvl& L, double values_per_point) {
    bytes_ += values_per_point * double(L.n.points()) * sizeof(T);
  }

  // `steps` smoothing steps out of place, u -> u2 -> u ..., two in one fused pass where the
  // hierarchy has it and the level's box (what one GPU smooths) is large enough to gain
  // (fuse_min_points_): Jacobi every
  // pair, Chebyshev a sweep of exactly two (a step after a fused pair would need the iterate
  // before its last, which the pass does not keep). Returns whether L.u now names the other
  // buffer (an odd number of passes): the cycle swaps back once, at its end (restore).
  bool smooth(Lvl& L, int steps) {
    if (steps <= 0) return false;
    const std::vector<SmoothingStep> sweep = coefficients(L, steps);
    const bool fuse = double(H_.box_points(L)) >= fuse_min_points_;
    bool flipped = false;
    for (int k = 0; k < steps; flipped = !flipped) {
      const bool pair = fuse && steps - k >= 2 && (smoother_ == Smoother::jacobi || steps == 2);
      if (pair && H_.smooth_fused(L, std::span<const SmoothingStep>(sweep).subspan(std::size_t(k), 2), s_)) {
        std::swap(L.u, L.u2);
        count(L, 3);  // u and f read, the result written
        k += 2;
        continue;
      }
      const SmoothingStep& st = sweep[std::size_t(k)];
      H_.ghosts(L, L.u, s_);
      if (st.chebyshev)
        chebyshev(L.a, st.alpha, st.beta, local(L.u), local(L.f), local(L.u2), s_);
      else
        jacobi(L.a, st.omega, local(L.u), local(L.f), local(L.u2), s_);
      std::swap(L.u, L.u2);
      count(L, st.chebyshev ? 4 : 3);
      ++k;
    }
    return flipped;
  }

  // The steps of a sweep. Chebyshev: the iteration on D^-1 A over [lam_lo, lam_hi] (Saad,
  // Alg. 12.1) in three-term form, u_{k+1} = u_k + a_k (u_k - u_{k-1}) + b_k D^-1 (f - A u_k),
  // its first step u_1 = u_0 + D^-1 r_0 / theta a Jacobi step.
  std::vector<SmoothingStep> coefficients(const Lvl& L, int steps) const {
    std::vector<SmoothingStep> sweep(static_cast<std::size_t>(steps));
    if (smoother_ == Smoother::jacobi) {
      for (SmoothingStep& st : sweep) st.omega = L.omega;
      return sweep;
    }
    const double theta = 0.5 * (L.lam_hi + L.lam_lo), delta = 0.5 * (L.lam_hi - L.lam_lo);
    const double sigma = theta / delta;
    double rho = 1.0 / sigma;
    sweep[0].omega = 1.0 / theta;
    for (std::size_t k = 1; k < sweep.size(); ++k) {
      const double rho_next = 1.0 / (2.0 * sigma - rho);
      sweep[k] = {true, 0.0, rho_next * rho, 2.0 * rho_next / delta};
      rho = rho_next;
    }
    return sweep;
  }

  // L.u back to the buffer it named before the cycle (the result copied there).
  void restore(Lvl& L) {
    std::swap(L.u, L.u2);
    copy_interior(L.u2, L.u, s_);
    count(L, 2);
  }

  // Exact where the hierarchy can (a dense-inverted coarsest grid, or the gathered levels
  // of a distributed one); otherwise many smoothing steps, slower to converge but never wrong.
  void coarse_solve(Lvl& L) {
    if (!H_.coarse_solve(L, s_) && smooth(L, 64)) restore(L);
  }

  H& H_;
  Smoother smoother_;
  int pre_, post_;
  Stream s_;
  int fmg_cycles_;
  double fuse_min_points_;
  double bytes_ = 0;
  CycleMarks* marks_ = nullptr;
};

}  // namespace strata::poisson
