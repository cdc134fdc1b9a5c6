// Where a ghost point of the wave field takes its value from, per axis: the odd (free) or
// even (rigid) mirror image about the face half a spacing outside, the periodic wrap, or 0
// beyond a pml face; repeated reflections cover ghost layers wider than the grid. Only the
// index map is shared by the CPU and CUDA ghost fills (like strata::ghost_source).
#pragma once

#include "base/host_device.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

struct MirrorSource {
  int index = 0;  // interior index along the axis
  int sign = 0;   // +1, -1, or 0 for "the value is 0"
};

STRATA_HOST_DEVICE inline MirrorSource mirror_source(int i, int n, FaceKind lo, FaceKind hi) {
  int sign = 1;
  for (int guard = 0; guard < 64; ++guard) {  // each pass moves i towards [0, n)
    if (i >= 0 && i < n) return {i, sign};
    const FaceKind k = i < 0 ? lo : hi;
    if (k == FaceKind::pml) return {0, 0};
    if (k == FaceKind::periodic) {
      i = ((i % n) + n) % n;
      continue;
    }
    if (k == FaceKind::free) sign = -sign;
    i = i < 0 ? -1 - i : 2 * n - 1 - i;  // reflection about the face at -1/2 or n - 1/2
  }
  return {0, 0};
}

}  // namespace strata::wave
