// Host interface of the fused leapfrog update (no CUDA headers): the policy's kernel per
// radius and every compiled variant, for the CUDA backend (wave.cu), the GPU tests and the
// benchmark. The backend itself is reached through backend/wave.hpp's factory.
#pragma once

#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/stencil/config.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"

namespace strata::cuda {

// out = 2 u - u_prev + c2 * star(u) on every interior point (or on `region` of the
// interior), in one 2.5D pass; star has radius + 1 coefficients (the grid-unit Laplacian).
// u's ghosts must hold the boundary values. All four fields are device fields of one
// layout. `out` may be u_prev (in place); it must not be u. zchunks = 0: the launcher
// chooses. Asynchronous on `stream`.
template <class T>
using WaveUpdateFn = void (*)(std::span<const double> star, const Field<T>& u,
                              const Field<T>& u_prev, const Field<T>& c2, Field<T>& out,
                              void* stream, int zchunks, Region region);

template <class T>
struct WaveUpdateVariant {
  int radius = 0;
  std::string name;         // tile configuration and centre policy, e.g. "tma-128x16v8s4-pf-l2"
  bool is_default = false;  // the policy of its radius
  bool candidate = false;   // one of the radius-4 shapes tuning chooses between
  WaveUpdateFn<T> launch = nullptr;
};

// Every compiled variant (the default of each radius first).
template <class T>
const std::vector<WaveUpdateVariant<T>>& wave_update_variants();

// The variant this device runs for a radius: at radius 4 the one tuning chose (the cache, the
// shipped table, a measurement now, or the policy: strata/tuning.hpp), else the policy.
template <class T>
const WaveUpdateVariant<T>& chosen_wave_update(int radius, void* stream = nullptr);

// out = the update by chosen_wave_update(radius) (radius 1..4).
template <class T>
void wave_update(std::span<const double> star, const Field<T>& u, const Field<T>& u_prev,
                 const Field<T>& c2, Field<T>& out, void* stream, int zchunks = 0,
                 Region region = {});

// The update on `region` with the imaging condition of a field run backward fused into it
// (kernels::LeapfrogCorrelate): out as wave_update stores it, to the bit, and at each of its
// points corr += lambda * ((u_prev - 2 u) + out), lambda = q / c2 as kernels::lambda_of
// forms it, in double and rounded to T (kernels::add_term), u_prev read before `out` replaces
// it. q and corr are interior origins of the fields' layout. One launch shape at every radius
// (tuning/wave_policy.hpp, WaveCorrelatingCandidates<T>::policy), z cut in chunks of about
// kCorrelatingChunkPlanes planes: the stored values do not depend on the shape.
template <class T>
void wave_update_correlating(std::span<const double> star, const Field<T>& u,
                             const Field<T>& u_prev, const Field<T>& c2, Field<T>& out, const T* q,
                             T* corr, void* stream, Region region = {});

// The correlating update's radius-4 launch shapes (tuning/wave_policy.hpp,
// WaveCorrelatingCandidates), the one wave_update_correlating runs first: the benchmark times
// them beside it (`strata bench --kernel wave`, rows wave_correlate), each checked against it
// bit for bit. zchunks = 0: chunks of about kCorrelatingChunkPlanes planes.
template <class T>
using WaveCorrelatingFn = void (*)(std::span<const double> star, const Field<T>& u,
                                   const Field<T>& u_prev, const Field<T>& c2, Field<T>& out,
                                   const T* q, T* corr, void* stream, int zchunks, Region region);

template <class T>
struct WaveCorrelatingVariant {
  std::string name;
  bool is_default = false;  // the shape wave_update_correlating runs
  WaveCorrelatingFn<T> launch = nullptr;
};

template <class T>
const std::vector<WaveCorrelatingVariant<T>>& wave_correlating_variants();

// The adjoint's bulk update of q (out = 2 q - q_prev + c2 * star(q), as wave_update stores it,
// to the bit) with checkpointing's imaging condition at each of its points
// (kernels::AdjointCorrelate): corr += lambda * ((next - 2 now) + prev) (lambda_of) in double,
// rounded to T, then next = now. now, prev, next and corr are interior origins of the fields'
// layout. The radius-4 wave policy's launch shape.
template <class T>
void wave_update_adjoint_correlating(std::span<const double> star, const Field<T>& q,
                                     const Field<T>& q_prev, const Field<T>& c2, Field<T>& out,
                                     const T* now, const T* prev, T* next, T* corr, void* stream);

// f(std::integral_constant<int, R>) for a wave stencil's radius R in 1..4 (orders 2 to 8): the
// radius the forward shell's and the adjoint layers' kernels take at compile time.
template <class F>
void with_radius(int radius, F&& f) {
  switch (radius) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    default:
      throw Error("internal: a wave stencil of radius " + std::to_string(radius));
  }
}

}  // namespace strata::cuda
