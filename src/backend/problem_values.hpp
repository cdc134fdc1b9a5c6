// Values of the generated Poisson problems that host loops and device kernels must compute
// bit for bit alike. The random right-hand side's value at a point: splitmix64 of seed + the
// point's C-order index, as a double uniform in [-1, 1). Counter-based, so the field is the
// same in any order and on any number of threads.
#pragma once

#include <cstdint>

#include "base/host_device.hpp"

namespace strata::poisson {

STRATA_HOST_DEVICE inline double random_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + index * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1p-52 - 1.0;  // 53 random bits: [0, 2) - 1
}

// A manufactured value, scale * product + offset, rounded the same on host and device (the
// device's multiply and add are not fused; the host compiles without contraction): the
// right-hand side is (k2, 0), the exact solution (1, the boundary value).
STRATA_HOST_DEVICE inline double scaled_value(double scale, double product, double offset) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dmul_rn(scale, product), offset);
#else
  return scale * product + offset;
#endif
}

}  // namespace strata::poisson

#undef STRATA_HOST_DEVICE
