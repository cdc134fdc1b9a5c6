// Launches the ghost fill on the field's stream: one pass over every ghost point of a whole
// field, or one axis and chosen sides for a distributed box's global faces.
#include <algorithm>

#include "backend/halo.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels/ghosts.cuh"
#include "cuda/stencil/registry.hpp"

namespace strata::cuda {

template <class T>
void fill_ghost_sides(Tag, Field<T>& f, const Boundary& bc, int width, int axis, bool lo, bool hi,
                      void* stream) {
  if ((!lo && !hi) || width < 1) return;
  const Extent n = f.extent();
  const kernels::GhostArgs a{f.layout().pitch, f.layout().plane, n.nx, n.ny, n.nz, width, bc.kind, lo, hi};
  const auto s = static_cast<cudaStream_t>(stream);
  // fill_ghost_axis's grid: x along the face's fastest index, y along the next, z over the
  // layers (x: over the sides).
  const int w2 = 2 * width;
  const int fast = axis == 0 ? n.ny : n.nx + w2, mid = axis == 2 ? n.ny + w2 : n.nz;
  const int layers = (lo ? width : 0) + (hi ? width : 0);
  const dim3 blocks(unsigned((fast + 255) / 256), unsigned(std::min(mid, 65535)),
                    unsigned(axis == 0 ? layers / width : layers));
  if (axis == 0)
    kernels::fill_ghost_axis<T, 0><<<blocks, 256, 0, s>>>(f.origin(), a, T(bc.value));
  else if (axis == 1)
    kernels::fill_ghost_axis<T, 1><<<blocks, 256, 0, s>>>(f.origin(), a, T(bc.value));
  else
    kernels::fill_ghost_axis<T, 2><<<blocks, 256, 0, s>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
}

template <class T>
void fill_ghosts(Tag, Field<T>& f, const Boundary& bc, int width, void* stream) {
  if (width < 1) return;
  const Extent n = f.extent();
  const kernels::GhostArgs a{f.layout().pitch, f.layout().plane, n.nx, n.ny, n.nz, width, bc.kind};
  // fill_ghost_all's grid: x and y as large as its largest part needs, z over the parts (the
  // 2w ghost planes, the 2w ghost rows, the two sides of x ghosts).
  const int px = n.nx + 2 * width, py = n.ny + 2 * width;
  const dim3 blocks(unsigned((std::max(px, n.ny) + 255) / 256), unsigned(std::min(std::max(py, n.nz), 65535)),
                    unsigned(4 * width + 2));
  kernels::fill_ghost_all<T><<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
}

template void fill_ghosts(Tag, Field<float>&, const Boundary&, int, void*);
template void fill_ghosts(Tag, Field<double>&, const Boundary&, int, void*);
template void fill_ghost_sides(Tag, Field<float>&, const Boundary&, int, int, bool, bool, void*);
template void fill_ghost_sides(Tag, Field<double>&, const Boundary&, int, int, bool, bool, void*);

}  // namespace strata::cuda
