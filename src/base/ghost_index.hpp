// Where a ghost point takes its value from, along one axis: shared by the CPU and CUDA ghost
// fills (src/cpu/ghosts.cpp, src/cuda/kernels/ghosts.cuh) and the multigrid transfers.
#pragma once

#include "base/host_device.hpp"
#include "strata/boundary.hpp"

namespace strata {

// Source interior index for ghost index i (i < 0 or i >= n) along an axis of n points,
// for neumann and periodic.
// Ghosts within n of the axis take the short form, without the integer divisions (which
// cost the GPU kernels dozens of instructions per call); wider ghosts of short axes take the
// general one.
STRATA_HOST_DEVICE inline int ghost_source(BoundaryKind kind, int i, int n) {
  const bool near = i >= -n && i < 2 * n;
  if (kind == BoundaryKind::periodic) {
    if (near) return i < 0 ? i + n : i >= n ? i - n : i;
    int m = i % n;
    return m < 0 ? m + n : m;
  }
  // symmetric reflection has period 2n: ... n-1 | 0 .. n-1 | n-1 .. 0 | 0 ...
  if (near) return i < 0 ? -1 - i : i >= n ? 2 * n - 1 - i : i;
  int p = 2 * n;
  int m = i % p;
  if (m < 0) m += p;
  return m < n ? m : p - 1 - m;
}

}  // namespace strata
