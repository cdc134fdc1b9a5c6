// An independent model of np.pad for the tests: the value at any (x, y, z), ghosts
// included, computed by folding each coordinate back into the interior one reflection or
// wrap at a time (no modular arithmetic shared with the library's ghost_source).
#pragma once

#include "strata/boundary.hpp"
#include "strata/field.hpp"

namespace strata::test {

inline int fold(BoundaryKind kind, int i, int n) {
  while (i < 0 || i >= n) {
    if (kind == BoundaryKind::periodic)
      i += i < 0 ? n : -n;
    else
      i = i < 0 ? -1 - i : 2 * n - 1 - i;  // mirror about the face: u[-1] = u[0]
  }
  return i;
}

// np.pad(interior, width, mode)[x, y, z] for a host field's interior.
template <class T>
T padded_value(const Field<T>& f, const Boundary& bc, int x, int y, int z) {
  const Extent n = f.extent();
  const bool outside = x < 0 || y < 0 || z < 0 || x >= n.nx || y >= n.ny || z >= n.nz;
  if (bc.kind == BoundaryKind::dirichlet && outside) return T(bc.value);
  return f(fold(bc.kind, x, n.nx), fold(bc.kind, y, n.ny), fold(bc.kind, z, n.nz));
}

}  // namespace strata::test
