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

}  // namespace strata
