// Ghost-layer fill on the device. fill_ghost_all: every ghost point of a whole field in one
// launch; fill_ghost_axis: one axis and chosen sides (a distributed box's global faces), one
// launch per axis in the order x, y, z, each pass covering the ghosts the previous ones made.
// Both give edges and corners as np.pad does: the rules map each coordinate on its own
// (strata::ghost_source), so a point off several faces takes u(src x, src y, src z).
#pragma once

#include <cstdint>

#include "base/ghost_index.hpp"
#include "strata/boundary.hpp"

namespace strata::cuda::kernels {

struct GhostArgs {
  std::int64_t pitch, plane;
  int nx, ny, nz, width;
  BoundaryKind kind;
  bool lo = true, hi = true;  // which sides to fill (a distributed box fills its global faces)
};

// axis 0 (x): points (k, y, z) for k in [0, 2w), y in [0, ny), z in [0, nz)
// axis 1 (y): points (x, k, z) for x in [-w, nx+w), k in [0, 2w), z in [0, nz)
// axis 2 (z): points (x, y, k) for x in [-w, nx+w), y in [-w, ny+w), k in [0, 2w)
// k < w is the low side (index -1-k), k >= w the high side (index n + k - w).
template <class T, int Axis>
__global__ void fill_ghost_axis(T* origin, GhostArgs a, T value) {
  const int w = a.width;
  const int ex = Axis == 0 ? 2 * w : a.nx + 2 * w;  // extent of the launch along x
  const int ey = Axis == 1 ? 2 * w : (Axis == 0 ? a.ny : a.ny + 2 * w);
  const int ez = Axis == 2 ? 2 * w : a.nz;
  const std::int64_t total = std::int64_t(ex) * ey * ez;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    int i = int(t % ex), j = int((t / ex) % ey), l = int(t / (std::int64_t(ex) * ey));
    int x = Axis == 0 ? 0 : i - w, y = Axis == 1 ? 0 : (Axis == 0 ? j : j - w), z = Axis == 2 ? 0 : l;
    const int k = Axis == 0 ? i : (Axis == 1 ? j : l);
    if (k < w ? !a.lo : !a.hi) continue;
    const int n = Axis == 0 ? a.nx : (Axis == 1 ? a.ny : a.nz);
    const int g = k < w ? -1 - k : n + k - w;  // ghost index along the axis
    int sx = x, sy = y, sz = z;
    if (Axis == 0) x = g, sx = ghost_source(a.kind, g, n);
    if (Axis == 1) y = g, sy = ghost_source(a.kind, g, n);
    if (Axis == 2) z = g, sz = ghost_source(a.kind, g, n);
    const T v = a.kind == BoundaryKind::dirichlet ? value
                                                  : origin[sz * a.plane + sy * a.pitch + sx];
    origin[z * a.plane + y * a.pitch + x] = v;
  }
}

// Threads map to the ghost points of the padded box, in three runs: the 2w z-ghost planes
// whole, then the 2w y-ghost rows of each interior plane, then the 2w x-ghost points of each
// interior row. One launch instead of three: the fill is a few microseconds of launches and
// tails beside a 512^3 pass, and most of a small field's apply. I is the index type:
// unsigned 32-bit whenever the ghost points number fewer than 2^32 (a 64-bit division is a
// long subroutine on the GPU, and this kernel divides several times per point: with 64-bit
// indices the fill of a 512^3 field took 51 us, 12% of a 7-point pass), else 64-bit.
template <class T, class I>
__global__ void fill_ghost_all(T* origin, GhostArgs a, T value) {
  const I w = I(a.width), w2 = 2 * w;
  const I px = I(a.nx) + w2, py = I(a.ny) + w2, ny = I(a.ny), nz = I(a.nz);
  const I zrun = w2 * px * py, yrun = nz * w2 * px;
  const I total = zrun + yrun + nz * ny * w2;
  for (I t = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); t < total; t += I(gridDim.x) * I(blockDim.x)) {
    int x, y, z;
    if (t < zrun) {  // (x, y) over the padded plane, k over the 2w ghost planes
      const I k = t / (px * py), r = t - k * (px * py);
      const I ry = r / px;
      x = int(r - ry * px) - a.width, y = int(ry) - a.width;
      z = k < w ? -1 - int(k) : a.nz + int(k - w);
    } else if (t < zrun + yrun) {  // x over the padded row, k over the 2w ghost rows
      const I u = t - zrun;
      const I row = u / px, zz = row / w2;
      const I k = row - zz * w2;
      x = int(u - row * px) - a.width, y = k < w ? -1 - int(k) : a.ny + int(k - w), z = int(zz);
    } else {  // k over the 2w ghost points of an interior row
      const I u = t - zrun - yrun;
      const I row = u / w2, zz = row / ny;
      const I k = u - row * w2;
      x = k < w ? -1 - int(k) : a.nx + int(k - w), y = int(row - zz * ny), z = int(zz);
    }
    const T v = a.kind == BoundaryKind::dirichlet
                    ? value
                    : origin[ghost_source(a.kind, z, a.nz) * a.plane +
                             ghost_source(a.kind, y, a.ny) * a.pitch + ghost_source(a.kind, x, a.nx)];
    origin[z * a.plane + y * a.pitch + x] = v;
  }
}

}  // namespace strata::cuda::kernels
