// Host interface of the fused leapfrog update (no CUDA headers): the policy's kernel per
// radius and every compiled variant, for the CUDA backend (wave.cu), the GPU tests and the
// benchmark. The backend itself is reached through core/wave_backend.hpp's factory.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "core/wave_schedule.hpp"
#include "strata/field.hpp"

namespace strata::cuda {

// out = 2 u - u_prev + c2 * star(u) on every interior point, in one 2.5D pass; star has
// radius + 1 coefficients (the grid-unit Laplacian). u's ghosts must hold the boundary
// values. All four fields are device fields of one layout. `out` may be u_prev (in place);
// it must not be u. zchunks = 0: the launcher chooses. Asynchronous on `stream`.
template <class T>
using WaveUpdateFn = void (*)(std::span<const double> star, const Field<T>& u, const Field<T>& u_prev,
                              const Field<T>& c2, Field<T>& out, void* stream, int zchunks);

template <class T>
struct WaveUpdateVariant {
  int radius = 0;
  std::string name;        // tile configuration and centre policy, e.g. "tma-128x16v8s4-l2"
  bool is_default = false;
  WaveUpdateFn<T> launch = nullptr;
};

// Every compiled variant (the default of each radius first).
template <class T>
const std::vector<WaveUpdateVariant<T>>& wave_update_variants();

// The policy's variant for a radius (1..4).
template <class T>
void wave_update(std::span<const double> star, const Field<T>& u, const Field<T>& u_prev, const Field<T>& c2,
                 Field<T>& out, void* stream, int zchunks = 0);

// One absorbing layer as the fused update sees it (core/wave_backend.hpp's PmlFace with its
// device arrays): a box spanning the grid across `axis`, dense arrays over the box (x
// fastest) and the constants a, b per point along the axis.
template <class T>
struct CpmlLayerArrays {
  int axis = 0;
  std::array<int, 3> lo{}, hi{};
  const T* psi_in = nullptr;  // psi of the previous step, read
  T* psi_out = nullptr;       // psi of this step, written; must not alias psi_in
  T* zeta = nullptr;          // updated in place
  const T* a = nullptr;
  const T* b = nullptr;
};

// The block geometry of the CPML update for a radius (1..4) on the current device, for
// wave::schedule_blocks.
template <class T>
wave::TileShape wave_cpml_tile_shape(int radius);

// out = 2 u - u_prev + c2 * (star(u) + sum over layers (D1 psi + zeta)), with psi and zeta
// updated as core/wave_backend.hpp states (d1, d2: radius + 1 coefficients each), in one
// 2.5D pass; at most 6 layers. `order` is a device array of the schedule's block order
// (tiles * zchunks entries, checked) and zchunks its chunk count: wave::schedule_blocks with
// wave_cpml_tile_shape. Fields as wave_update (out may be u_prev, not u). Asynchronous.
template <class T>
void wave_update_cpml(std::span<const double> star, std::span<const double> d1, std::span<const double> d2,
                      const Field<T>& u, const Field<T>& u_prev, const Field<T>& c2, Field<T>& out,
                      std::span<const CpmlLayerArrays<T>> layers, const int* order, std::size_t order_size,
                      int zchunks, void* stream);

}  // namespace strata::cuda
