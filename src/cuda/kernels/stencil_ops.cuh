// What one input plane contributes to the outputs, per stencil family: the per-point maths,
// written once. A plane p reaches outputs p-R..p+R; acc[j][v] holds the partial sum of
// output plane p-R+j for the thread's v-th row, so plane p adds layer dz = R-j to acc[j].
// `s` points at the thread's first output point in the shared-memory plane (row pitch W).
#pragma once

#include "base/host_device.hpp"

namespace strata::cuda::kernels {

// 2.5D copy: the practical ceiling (paper's copycube). Radius 0: no halo is loaded.
template <class T>
struct CopyOp {
  using value_type = T;
  static constexpr int radius = 0;
  template <int VY, int W>
  __device__ __forceinline__ void plane(const T* s, T (&acc)[1][VY]) const {
#pragma unroll
    for (int v = 0; v < VY; ++v) acc[0][v] = s[v * W];
  }
};

// Reads the tile with a radius-1 halo like a stencil, writes only the centre (paper's
// copycube_halo): the data movement of a 27-point pass with none of its arithmetic.
template <class T>
struct CopyHaloOp {
  using value_type = T;
  static constexpr int radius = 1;
  template <int VY, int W>
  __device__ __forceinline__ void plane(const T* s, T (&acc)[3][VY]) const {
#pragma unroll
    for (int v = 0; v < VY; ++v) acc[1][v] += s[v * W];
  }
};

// Star of radius R: c0*u + sum_r c_r * (six neighbours at distance r).
template <class T, int R>
struct StarOp {
  using value_type = T;
  static constexpr int radius = R;
  T c[R + 1];

  template <int VY, int W>
  __device__ __forceinline__ void plane(const T* s, T (&acc)[2 * R + 1][VY]) const {
    T col[VY + 2 * R];  // the thread's column, R rows above and below its outputs
#pragma unroll
    for (int k = 0; k < VY + 2 * R; ++k) col[k] = s[(k - R) * W];
#pragma unroll
    for (int v = 0; v < VY; ++v) {
      const T u = col[v + R];
      T in_plane = c[0] * u;
#pragma unroll
      for (int r = 1; r <= R; ++r)
        in_plane = STRATA_FMA(c[r], (s[v * W - r] + s[v * W + r]) + (col[v + R - r] + col[v + R + r]), in_plane);
      acc[R][v] += in_plane;
#pragma unroll
      for (int r = 1; r <= R; ++r) {  // u is the z-neighbour at distance r of outputs p -+ r
        acc[R - r][v] = STRATA_FMA(c[r], u, acc[R - r][v]);
        acc[R + r][v] = STRATA_FMA(c[r], u, acc[R + r][v]);
      }
    }
  }
};

// Symmetric 27-point: c0 centre, c1 faces, c2 edges, c3 corners. Common subexpressions
// (paper): per plane only the centre C, the in-plane face sum F and corner sum E are
// needed, and planes dz = -1 and +1 share one layer: L1 = c1*C + c2*F + c3*E.
template <class T>
struct Sym27Op {
  using value_type = T;
  static constexpr int radius = 1;
  T c[4];

  template <int VY, int W>
  __device__ __forceinline__ void plane(const T* s, T (&acc)[3][VY]) const {
    T mid[VY + 2], side[VY + 2];  // per row: the centre column, and left + right
#pragma unroll
    for (int k = 0; k < VY + 2; ++k) {
      const T* row = s + (k - 1) * W;
      mid[k] = row[0];
      side[k] = row[-1] + row[1];
    }
#pragma unroll
    for (int v = 0; v < VY; ++v) {
      const T C = mid[v + 1];
      const T F = side[v + 1] + (mid[v] + mid[v + 2]);
      const T E = side[v] + side[v + 2];
      const T L0 = STRATA_FMA(c[2], E, STRATA_FMA(c[1], F, c[0] * C));  // as Sym27Point (temporal.cuh)
      const T L1 = STRATA_FMA(c[3], E, STRATA_FMA(c[2], F, c[1] * C));
      acc[0][v] += L1;
      acc[1][v] += L0;
      acc[2][v] += L1;
    }
  }
};

// General 27-point (3x3x3 convolution): k[(dz+1)*9 + (dy+1)*3 + (dx+1)].
template <class T>
struct Box27Op {
  using value_type = T;
  static constexpr int radius = 1;
  T k[27];

  template <int VY, int W>
  __device__ __forceinline__ void plane(const T* s, T (&acc)[3][VY]) const {
    T u[VY + 2][3];
#pragma unroll
    for (int r = 0; r < VY + 2; ++r)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx) u[r][dx] = s[(r - 1) * W + dx - 1];
#pragma unroll
    for (int v = 0; v < VY; ++v)
#pragma unroll
      for (int j = 0; j < 3; ++j) {  // output p-1+j sees this plane at dz = 1-j
        const T* kz = k + (2 - j) * 9;
        T sum = acc[j][v];
#pragma unroll
        for (int dy = 0; dy < 3; ++dy)
#pragma unroll
          for (int dx = 0; dx < 3; ++dx) sum += kz[dy * 3 + dx] * u[v + dy][dx];
        acc[j][v] = sum;
      }
  }
};

}  // namespace strata::cuda::kernels
