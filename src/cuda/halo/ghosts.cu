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
  if (!lo && !hi) return;
  const Extent n = f.extent();
  const kernels::GhostArgs a{f.layout().pitch, f.layout().plane, n.nx, n.ny, n.nz, width, bc.kind, lo, hi};
  const auto s = static_cast<cudaStream_t>(stream);
  const std::int64_t w2 = 2 * std::int64_t(width);
  const std::int64_t sizes[3] = {w2 * n.ny * n.nz, (n.nx + w2) * w2 * n.nz,
                                 (n.nx + w2) * (n.ny + w2) * w2};
  const auto blocks = unsigned(std::clamp<std::int64_t>((sizes[axis] + 255) / 256, 1, 65535));
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
  const Extent n = f.extent();
  const kernels::GhostArgs a{f.layout().pitch, f.layout().plane, n.nx, n.ny, n.nz, width, bc.kind};
  const std::int64_t w2 = 2 * std::int64_t(width);
  const std::int64_t points = (n.nx + w2) * (n.ny + w2) * (n.nz + w2) - std::int64_t(n.points());
  const auto blocks = unsigned(std::clamp<std::int64_t>((points + 255) / 256, 1, 65535));
  const auto s = static_cast<cudaStream_t>(stream);
  // Every index the kernel forms is below its total (the padded sizes it multiplies are
  // themselves parts of the total), so 32 bits do when the total fits.
  if (points + std::int64_t(blocks) * 256 < (std::int64_t(1) << 32))
    kernels::fill_ghost_all<T, std::uint32_t><<<blocks, 256, 0, s>>>(f.origin(), a, T(bc.value));
  else
    kernels::fill_ghost_all<T, std::uint64_t><<<blocks, 256, 0, s>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
}

template void fill_ghosts(Tag, Field<float>&, const Boundary&, int, void*);
template void fill_ghosts(Tag, Field<double>&, const Boundary&, int, void*);
template void fill_ghost_sides(Tag, Field<float>&, const Boundary&, int, int, bool, bool, void*);
template void fill_ghost_sides(Tag, Field<double>&, const Boundary&, int, int, bool, bool, void*);

}  // namespace strata::cuda
