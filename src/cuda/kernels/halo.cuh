// Face packing for the halo exchange: one thread per point of a box of the field (ghosts
// allowed), the buffer dense with x fastest, so consecutive threads touch consecutive
// elements on both sides.
#pragma once

#include <cstdint>

namespace strata::cuda::kernels {

struct BoxArgs {
  std::int64_t pitch, plane;  // the field's row and plane strides (elements)
  int x0, y0, z0, nx, ny, nz; // the box, in interior coordinates
};

template <class T, bool Pack>
__global__ void copy_box(T* origin, T* buf, BoxArgs b) {
  const std::int64_t total = std::int64_t(b.nx) * b.ny * b.nz;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const int x = int(t % b.nx), y = int((t / b.nx) % b.ny), z = int(t / (std::int64_t(b.nx) * b.ny));
    T* p = origin + (b.z0 + z) * b.plane + (b.y0 + y) * b.pitch + (b.x0 + x);
    if (Pack)
      buf[t] = *p;
    else
      *p = buf[t];
  }
}

}  // namespace strata::cuda::kernels
