// The methods solve_poisson runs, behind one table. Each method (one file apiece:
// jacobi.cpp, vcycle.cpp for mg and fmg, krylov.cpp for cg and mgcg, fft.cpp) improves
// the correction e for the error equation A e = r0 from e = 0, recording every iteration
// with the monitor, and may be run again from a recomputed r0 (a restart: solve.cpp).
// What a method needs (a hierarchy and its precision, FFT plans) it builds when made.
// Bytes moved are apart from the iterations: each method's cost model turns the counts
// of what it did into the bytes the report's gb_per_s divides by the solve time.
// V is the vector: Field<T> on one process, DistField<T> over many ranks (vec.hpp); the
// methods that run on both (mg, cg, mgcg) are written once for both.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "base/runtime.hpp"
#include "solvers/poisson/monitor.hpp"
#include "solvers/poisson/vec.hpp"
#include "strata/poisson.hpp"
#include "strata/reduce.hpp"
#include "strata/vector_ops.hpp"

namespace strata::poisson {

// Owns a private stream for device solves (null on the host).
struct StreamHolder {
  explicit StreamHolder(Memory m) : handle(m == Memory::device ? runtime::stream_create() : nullptr) {}
  ~StreamHolder() { runtime::stream_destroy(handle); }
  StreamHolder(const StreamHolder&) = delete;
  StreamHolder& operator=(const StreamHolder&) = delete;
  Stream stream() const { return Stream{handle}; }
  void* handle;
};

// v - mean(v) in place, using `tmp` for the constant; returns the mean removed.
template <class V>
double remove_mean(V& v, V& tmp, Stream s) {
  using T = scalar_of<V>;
  const double mean = sum(v, s) / double(global_extent(v).points());
  fill(tmp, T(mean), s);
  axpy(T(-1), tmp, v, s);
  return mean;
}

// The state of one solve that every method works on.
template <class T, class V = Field<T>>
struct Solve {
  Solve(const PoissonOptions& o, const V& f, V& u);

  // A new vector of the error equation (one ghost layer).
  V make() const { return like<T>(u); }
  // The ghost layer of a field of the error equation before a stencil pass.
  void fill_error_ghosts(V& v) { error_ghosts(v, hb, s); }
  // ||u + e|| for the floor test (e: the correction so far).
  double norm_with(const V& correction) {
    copy_interior(u, tmp, s);
    axpy(T(1), correction, tmp, s);
    return norm2(tmp, s);
  }
  // Records iteration `it` with the method's residual norm (Monitor::record); true: stop.
  bool record(double rnorm, const std::function<double()>& solution_norm,
              const std::function<double()>& smooth_norm = {}) {
    ++records;
    return mon->record(it, rnorm, solution_norm, smooth_norm);
  }
  // Bytes of `values` values a point on the finest grid in T: the unit of the cost models.
  double grid_bytes(double values) const { return values * double(n.points()) * sizeof(T); }

  const PoissonOptions& o;
  V& u;
  Extent n;  // the global grid
  Memory mem;
  double h;
  Stencil a;
  Boundary hb;  // the boundary condition of the error equation
  StreamHolder sh;
  Stream s;
  bool singular;
  V rhs, r0, e, tmp;
  double f_norm = 0, f_mean = 0;  // on null spaces: ||f|| and the mean removed from it
  PoissonReport rep;
  std::optional<Monitor> mon;  // made when the solve starts, after the setup
  // What the methods did, over the whole solve (restarts included): the cost models' counts.
  int it = 0;       // iterations
  int runs = 0;     // times a method ran (1 + restarts)
  int records = 0;  // residuals recorded with the monitor
};

template <class T, class V = Field<T>>
class Method {
public:
  virtual ~Method() = default;
  // One run from e = 0 for A e = r0, until the monitor stops it.
  virtual Stop run(Solve<T, V>& S) = 0;
  // Bytes moved by the runs so far (the method's cost model).
  virtual double bytes(const Solve<T, V>& S) const = 0;
  // The grids it works on, finest first (the report's levels).
  virtual std::vector<PoissonLevelInfo> levels(const Solve<T, V>& S) const { return {{S.n, {S.h, S.h, S.h}}}; }
  // Multigrid with STRATA_POISSON_LEVELS=1: where a cycle's time goes (the report's level_ms).
  virtual std::vector<std::pair<std::string, double>> level_ms() const { return {}; }
};

// The method table (method.cpp): for each --solver, the function that makes it and how the
// monitor reads its residuals. A method that runs on one process only has no maker for
// DistField vectors (null).
template <class T, class V = Field<T>>
struct MethodEntry {
  PoissonMethod id;
  std::unique_ptr<Method<T, V>> (*make)(Solve<T, V>&);  // builds what it needs: hierarchy, plans
  bool stationary;  // the residual falls every iteration (diverged: tenfold above its best)
  bool fast;        // multigrid: near the floor, follow the residual's smooth part
  bool direct;      // one application of A^-1 per run, no iterations to watch
};
template <class T, class V = Field<T>>
const MethodEntry<T, V>& method_entry(PoissonMethod id);

// The makers, one per method file.
template <class T>
std::unique_ptr<Method<T>> make_jacobi(Solve<T>& S);
template <class T, class V>
std::unique_ptr<Method<T, V>> make_multigrid(Solve<T, V>& S);  // mg and fmg
template <class T, class V>
std::unique_ptr<Method<T, V>> make_cg(Solve<T, V>& S);
template <class T, class V>
std::unique_ptr<Method<T, V>> make_mgcg(Solve<T, V>& S);  // float cycles under a double CG when mixed
template <class T>
std::unique_ptr<Method<T>> make_fft(Solve<T>& S);

// Checks the options against the grid and where its fields live (solve.cpp); throws Error.
void validate(const PoissonOptions& o, Extent n, Memory mem);
// Runs the solve the options ask for: the method, its restarts, the report (solve.cpp).
template <class T, class V>
PoissonReport run(Solve<T, V>& S);

}  // namespace strata::poisson
