// Ghost-layer fill on the host: x faces over the interior rows, then y faces over full
// (ghosted) rows, then z faces over full planes, so edges and corners come out as np.pad's.
#include "backend/halo.hpp"
#include "base/ghost_index.hpp"
#include "cpu/cpu.hpp"

namespace strata::cpu {

template <class T>
void fill_ghost_sides(Tag, Field<T>& f, const Boundary& bc, int w, int axis, bool lo, bool hi,
                      void*) {
  const Extent n = f.extent();
  const bool dir = bc.kind == BoundaryKind::dirichlet;
  const T v = T(bc.value);
  auto src = [&](int i, int len) { return ghost_source(bc.kind, i, len); };

  if (axis == 0) {
#pragma omp parallel for if (threaded(n.points()))
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int k = 1; k <= w; ++k) {
          if (lo) f(-k, y, z) = dir ? v : f(src(-k, n.nx), y, z);
          if (hi) f(n.nx - 1 + k, y, z) = dir ? v : f(src(n.nx - 1 + k, n.nx), y, z);
        }
  } else if (axis == 1) {
#pragma omp parallel for if (threaded(n.points()))
    for (int z = 0; z < n.nz; ++z)
      for (int k = 1; k <= w; ++k)
        for (int x = -w; x < n.nx + w; ++x) {
          if (lo) f(x, -k, z) = dir ? v : f(x, src(-k, n.ny), z);
          if (hi) f(x, n.ny - 1 + k, z) = dir ? v : f(x, src(n.ny - 1 + k, n.ny), z);
        }
  } else {
#pragma omp parallel for if (threaded(n.points()))
    for (int y = -w; y < n.ny + w; ++y)
      for (int k = 1; k <= w; ++k)
        for (int x = -w; x < n.nx + w; ++x) {
          if (lo) f(x, y, -k) = dir ? v : f(x, y, src(-k, n.nz));
          if (hi) f(x, y, n.nz - 1 + k) = dir ? v : f(x, y, src(n.nz - 1 + k, n.nz));
        }
  }
}

template <class T>
void fill_ghosts(Tag, Field<T>& f, const Boundary& bc, int w, void* stream) {
  for (int axis = 0; axis < 3; ++axis) fill_ghost_sides(Tag{}, f, bc, w, axis, true, true, stream);
}

template void fill_ghosts(Tag, Field<float>&, const Boundary&, int, void*);
template void fill_ghosts(Tag, Field<double>&, const Boundary&, int, void*);
template void fill_ghost_sides(Tag, Field<float>&, const Boundary&, int, int, bool, bool, void*);
template void fill_ghost_sides(Tag, Field<double>&, const Boundary&, int, int, bool, bool, void*);

}  // namespace strata::cpu
