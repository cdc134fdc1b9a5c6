// Device code of the absorbing layers, folded into the fused leapfrog pass: the CPML terms
// of core/wave_backend.hpp at the points of each layer box, as a point-aware epilogue of the
// 2.5D kernel. An interior point pays one box test; a layer point pays its memory variables
// (psi and zeta read and written, per layer it is in); u along the layer's axis comes from
// L1/L2 (planes the kernel has streamed, or asked L2 for one plane ahead), so no value of u
// is read twice from DRAM.
#pragma once

#include <cstdint>

#include "cuda/kernels/stencil_25d.cuh"
#include "cuda/kernels/wave.cuh"

namespace strata::cuda::kernels {

// Pulls a line into L2 without occupying a register: the layer operands first touched by a
// point are requested one output plane ahead, so DRAM latency is not exposed at the store.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// One absorbing layer: a box of interior points spanning the grid across its axis, dense
// psi and zeta over the box (x fastest) and the recursive-convolution constants a, b per
// point along the axis (index = coordinate - qlo). psi is double-buffered: a point's
// neighbours recompute its new psi from psi_in, so psi_out must not alias it. zeta is read
// and written in place by the thread that owns the point.
template <class T>
struct CpmlLayer {
  int axis = 0;
  int qlo = 0, qhi = 0;        // the box along its axis: qlo <= q < qhi
  int lo[3] = {0, 0, 0};       // the box's first point
  int wx = 0, wy = 0;          // the box's extent in x and y (its dense array's strides)
  std::int64_t su = 0, sp = 0;  // stride along the axis in u, and in the box's arrays
  const T* psi_in = nullptr;
  T* psi_out = nullptr;
  T* zeta = nullptr;
  const T* a = nullptr;
  const T* b = nullptr;

  __device__ __forceinline__ int along(const OutPoint& p) const { return axis == 0 ? p.x : axis == 1 ? p.y : p.z; }
  __device__ __forceinline__ std::int64_t index(const OutPoint& p) const {
    return (std::int64_t(p.z - lo[2]) * wy + (p.y - lo[1])) * wx + (p.x - lo[0]);
  }
};

// Every layer of a run, the derivative coefficients and the box no layer touches.
template <class T, int R>
struct CpmlTerms {
  static constexpr int kMaxLayers = 6;
  CpmlLayer<T> layer[kMaxLayers];
  int layers = 0;
  int inner_lo[3] = {0, 0, 0}, inner_hi[3] = {0, 0, 0};  // points inside are in no layer
  T d1[R + 1] = {};  // first derivative, d1[0] unused
  T d2[R + 1] = {};  // second derivative along one axis

  __device__ __forceinline__ bool in_layers(const OutPoint& p) const {
    return p.x < inner_lo[0] || p.x >= inner_hi[0] || p.y < inner_lo[1] || p.y >= inner_hi[1] ||
           p.z < inner_lo[2] || p.z >= inner_hi[2];
  }

  // The first touches of the point's layer operands: its zeta and psi (for a z layer, psi
  // and u the farthest planes ahead its z neighbourhood reaches; nearer ones were asked for
  // on earlier planes). Neighbours in x and y are other threads' points of the same plane.
  __device__ __forceinline__ void prefetch(const T* u, const OutPoint& p) const {
#pragma unroll 1
    for (int l = 0; l < layers; ++l) {
      const CpmlLayer<T>& L = layer[l];
      const int q = L.along(p);
      if (q < L.qlo || q >= L.qhi) continue;
      const std::int64_t t = L.index(p);
      prefetch_l2(L.zeta + t);
      if (L.axis != 2) {
        prefetch_l2(L.psi_in + t);
      } else if (q + R < L.qhi) {  // as far as correction() reads
        prefetch_l2(L.psi_in + t + R * L.sp);
        prefetch_l2(u + p.off + 2 * R * L.su);
      }
    }
  }

  // sum over the point's layers of D1 psi + zeta, after updating them:
  //   psi  = b psi + a D1 u          (at the point and at its 2R neighbours along the axis)
  //   zeta = b zeta + a (D2 u + D1 psi)
  // The neighbours' new psi are recomputed here from psi_in, in the same operations as their
  // own threads use, so one pass suffices and no thread waits for another.
  __device__ __forceinline__ T correction(const T* u, const OutPoint& p) const {
    T corr = T(0);
#pragma unroll 1
    for (int l = 0; l < layers; ++l) {
      const CpmlLayer<T>& L = layer[l];
      const int q = L.along(p);
      if (q < L.qlo || q >= L.qhi) continue;
      const std::int64_t t = L.index(p);
      const T* c = u + p.off;
      // u(q + j - 2R): every value a layer point's D1 u reaches (ghosts at most R deep).
      T w[4 * R + 1];
#pragma unroll
      for (int j = 0; j <= 4 * R; ++j) {
        const int qj = q + j - 2 * R;
        w[j] = qj >= L.qlo - R && qj < L.qhi + R ? __ldg(c + (j - 2 * R) * L.su) : T(0);
      }
      // psi at q + r, 0 outside the layer.
      T psi[2 * R + 1];
#pragma unroll
      for (int r = -R; r <= R; ++r) {
        const int qr = q + r;
        psi[r + R] = T(0);
        if (qr >= L.qlo && qr < L.qhi) {
          T du = T(0);
#pragma unroll
          for (int s = 1; s <= R; ++s) du += d1[s] * (w[2 * R + r + s] - w[2 * R + r - s]);
          const int i = qr - L.qlo;
          psi[r + R] = fma(__ldg(L.b + i), __ldg(L.psi_in + t + r * L.sp), __ldg(L.a + i) * du);
        }
      }
      T dpsi = T(0), d2u = d2[0] * w[2 * R];
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        dpsi += d1[r] * (psi[R + r] - psi[R - r]);
        d2u += d2[r] * (w[2 * R + r] + w[2 * R - r]);
      }
      const int i = q - L.qlo;
      const T z = fma(__ldg(L.b + i), L.zeta[t], __ldg(L.a + i) * (d2u + dpsi));
      L.psi_out[t] = psi[R];
      L.zeta[t] = z;
      corr += dpsi + z;
    }
    return corr;
  }
};

// u+ = 2u - u- + c2 (Lap u + sum over layers (D1 psi + zeta)): LeapfrogEpilogue at every
// point, plus the layer terms where a layer is. Interior points compute exactly what
// LeapfrogEpilogue computes. `order` is the block order of core/wave_schedule.hpp
// (OrderingEpilogue): a tile full of layer points moves twice the bytes of an interior one,
// so z is split and heavy blocks start first. Aliasing as LeapfrogEpilogue; psi_in must not
// alias psi_out.
template <class T, int R, bool kCentreInRegisters>
struct LeapfrogCpmlEpilogue {
  using Base = LeapfrogEpilogue<T, kCentreInRegisters>;
  static constexpr bool needs_centre = Base::needs_centre;
  using Aux = typename Base::Aux;
  Base base;
  CpmlTerms<T, R> cpml;
  const int* order = nullptr;  // tiles * chunks entries: the work of the b-th block

  __device__ __forceinline__ int block_work(int b) const { return __ldg(order + b); }
  __device__ __forceinline__ Aux load(OutPoint p) const {
    if (cpml.in_layers(p)) cpml.prefetch(base.u, p);
    return base.load(p.off);
  }
  __device__ __forceinline__ T operator()(T s, T centre, Aux a, OutPoint p) const {
    if (cpml.in_layers(p)) s += cpml.correction(base.u, p);
    return base(s, centre, a, p.off);
  }
};

}  // namespace strata::cuda::kernels
