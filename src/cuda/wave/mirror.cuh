// Each non-pml face of a wave field as index arithmetic for kernels::wave_mirror_ghosts:
// strides across the face and, per ghost layer, the offsets along the axis of the ghost and
// its source with the sign (the CPU's map, backend/wave_ghosts.hpp). Shared by the forward
// backend (wave.cu) and the adjoint (adjoint.cu), which fills the same ghosts.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backend/wave.hpp"
#include "backend/wave_ghosts.hpp"
#include "cuda/kernels/wave.cuh"
#include "strata/field.hpp"

namespace strata::wave {

struct MirrorPlan {
  cuda::kernels::MirrorArgs args{};
  unsigned faces = 0;     // faces filled (blockIdx.y)
  std::int64_t work = 0;  // ghost points of the largest face
};

inline MirrorPlan mirror_plan(const Setup& s, const Layout& L) {
  MirrorPlan p;
  const int n[3] = {s.n.nx, s.n.ny, s.n.nz};
  const std::int64_t stride[3] = {1, std::int64_t(L.pitch), std::int64_t(L.plane)};
  require(s.radius <= cuda::kernels::MirrorFace::kMaxDepth,
          "internal: ghost layers deeper than the mirror kernel's");
  for (int face = 0; face < 6; ++face) {
    if (s.faces[face] == FaceKind::pml) continue;
    const int axis = face / 2, side = face % 2;
    const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;  // the two other axes, a1 fastest
    cuda::kernels::MirrorFace& m = p.args.face[p.faces++];
    m.e0 = n[a1], m.e1 = n[a2];
    m.s0 = stride[a1], m.s1 = stride[a2];
    m.depth = s.radius;
    m.depth_fastest = axis == 0;
    for (int k = 1; k <= s.radius; ++k) {
      const int g = side ? n[axis] - 1 + k : -k;
      const MirrorSource src = mirror_source(g, n[axis], s.faces[2 * axis], s.faces[2 * axis + 1]);
      m.ghost[k - 1] = g * stride[axis];
      m.source[k - 1] = std::int64_t(src.index) * stride[axis];
      m.sign[k - 1] = src.sign;
    }
    const std::int64_t work = std::int64_t(m.e0) * m.e1 * m.depth;
    require(work < (std::int64_t(1) << 31), "internal: a face of more than 2^31 ghost points");
    p.work = std::max(p.work, work);
  }
  return p;
}

}  // namespace strata::wave
