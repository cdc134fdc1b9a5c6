// The CUDA stencil backend's host interface (no CUDA headers): every compiled kernel
// implementation by name, and the dispatch the public API uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backend/stencil.hpp"  // fill_ghosts, apply_interior
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::cuda {

// Launches one implementation: out = kernel(in) on the interior, or on `region` of it (its
// x0 a multiple of 16 bytes). `stencil` supplies the coefficients (ignored by the copies);
// zchunks = 0 lets the launcher choose.
template <class T>
using StencilLaunchFn = void (*)(const Stencil* stencil, const Field<T>& in, Field<T>& out,
                                 void* stream, int zchunks, Region region);

template <class T>
struct StencilImpl {
  std::string kernel;   // "copy", "copy_halo", "7pt", "star2", "star3", "star4", "sym27", "box27"
  std::string variant;  // tile configuration, e.g. "tma-64x16v4s4"
  bool is_default = false;  // the policy table's choice for this kernel and precision
  bool candidate = false;   // one of the shapes tuning chooses between (not a tile variant)
  StencilLaunchFn<T> launch = nullptr;
  // The same pass reading +0 beyond the interior instead of in's ghost layers (the TMA
  // loaders: the tensor map covers the interior alone and the hardware fills the rest with
  // zeros), on `region` (whole: the interior), the launcher's z split; real_yz: bit 0 (y) and
  // bit 1 (z) read that axis's ghost layers instead. nullptr where the loader cannot
  // (cp.async).
  void (*launch_zero_ghosts)(const Stencil* stencil, const Field<T>& in, Field<T>& out,
                             void* stream, Region region, int real_yz) = nullptr;
};

// Every compiled implementation (defaults first per kernel; the tile variants of
// tuning/variants/ when built with STRATA_STENCIL_VARIANTS).
template <class T>
const std::vector<StencilImpl<T>>& stencil_impls();

// The default implementation of a kernel (the compiled policy); throws Error for an unknown
// kernel name.
template <class T>
const StencilImpl<T>& default_impl(std::string_view kernel);

// The implementation this device runs for a kernel: the shape tuning chose (the cache, the
// shipped table, a measurement now, or the policy: strata/tuning.hpp). `stream` is the
// caller's: a measurement waits for its work, and none is made while it is being captured.
template <class T>
const StencilImpl<T>& chosen_impl(std::string_view kernel, void* stream = nullptr);

// The implementation of a kernel with a given shape, or nullptr.
template <class T>
const StencilImpl<T>* find_impl(std::string_view kernel, std::string_view variant);

// The implementation family name of a stencil ("7pt", "star4", "sym27", "box27").
inline std::string kernel_name(const Stencil& s) { return s.name(); }

}  // namespace strata::cuda
