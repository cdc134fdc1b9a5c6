// Launches the three ghost-fill passes on the field's stream.
#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/kernels/ghosts.cuh"
#include "cuda/stencil_cuda.hpp"

namespace strata::cuda {

template <class T>
void fill_ghosts(Field<T>& f, const Boundary& bc, int width, void* stream) {
  const Extent n = f.extent();
  const kernels::GhostArgs a{f.layout().pitch, f.layout().plane, n.nx, n.ny, n.nz, width, bc.kind};
  const auto s = static_cast<cudaStream_t>(stream);
  const std::int64_t w2 = 2 * std::int64_t(width);
  const std::int64_t sizes[3] = {w2 * n.ny * n.nz, (n.nx + w2) * w2 * n.nz,
                                 (n.nx + w2) * (n.ny + w2) * w2};
  auto blocks = [](std::int64_t total) {
    return unsigned(std::clamp<std::int64_t>((total + 255) / 256, 1, 65535));
  };
  kernels::fill_ghost_axis<T, 0><<<blocks(sizes[0]), 256, 0, s>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
  kernels::fill_ghost_axis<T, 1><<<blocks(sizes[1]), 256, 0, s>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
  kernels::fill_ghost_axis<T, 2><<<blocks(sizes[2]), 256, 0, s>>>(f.origin(), a, T(bc.value));
  STRATA_CUDA_CHECK_LAUNCH();
}

template void fill_ghosts(Field<float>&, const Boundary&, int, void*);
template void fill_ghosts(Field<double>&, const Boundary&, int, void*);

}  // namespace strata::cuda
