// Where a ghost point takes its value from, along one axis: shared by the CPU and CUDA ghost
// fills (src/cpu/ghosts.cpp, src/cuda/kernels/ghosts.cuh) and the multigrid transfers.
#pragma once

#include "base/host_device.hpp"
#include "strata/boundary.hpp"

namespace strata {

// Source interior index for ghost index i (i < 0 or i >= n) along an axis of n points,
// for neumann and periodic.
STRATA_HOST_DEVICE inline int ghost_source(BoundaryKind kind, int i, int n) {
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
