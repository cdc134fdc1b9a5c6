// Boundary conditions, applied by filling ghost layers before a stencil pass so the
// kernels stay branch-free. Cell-centred convention: the boundary face lies half a
// spacing outside the first and last interior points. The modes match NumPy's np.pad:
//   dirichlet(v) = 'constant' with constant_values=v (ghosts hold v)
//   neumann      = 'symmetric' (even reflection about the boundary face: u[-1] = u[0])
//   periodic     = 'wrap'      (u[-1] = u[n-1])
// Ghost layers wider than the interior repeat the reflection / wrap, as np.pad does.
#pragma once

#include <string>
#include <string_view>

namespace strata {

enum class BoundaryKind { dirichlet, neumann, periodic };

struct Boundary {
  BoundaryKind kind = BoundaryKind::dirichlet;
  double value = 0.0;  // dirichlet only

  static Boundary dirichlet(double value = 0.0) { return {BoundaryKind::dirichlet, value}; }
  static Boundary neumann() { return {BoundaryKind::neumann, 0.0}; }
  static Boundary periodic() { return {BoundaryKind::periodic, 0.0}; }
  // "dirichlet", "dirichlet:VALUE", "neumann", "periodic"; throws Error otherwise.
  static Boundary parse(std::string_view text);
  std::string describe() const;
  bool operator==(const Boundary&) const = default;
};

// Source interior index for ghost index i (i < 0 or i >= n) along an axis of n points,
// for neumann and periodic. Shared by the CPU and CUDA ghost fills (host/device).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline int ghost_source(BoundaryKind kind, int i, int n) {
  if (kind == BoundaryKind::periodic) {
    int m = i % n;
    return m < 0 ? m + n : m;
  }
  // symmetric reflection has period 2n: ... n-1 | 0 .. n-1 | n-1 .. 0 | 0 ...
  int p = 2 * n;
  int m = i % p;
  if (m < 0) m += p;
  return m < n ? m : p - 1 - m;
}

}  // namespace strata
