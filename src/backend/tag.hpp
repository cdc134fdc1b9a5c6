// The backends' tags, in the style of Kokkos's execution spaces: one empty type per backend
// namespace, the first parameter of every seam function (the *_api.inc and *_passes.inc
// lists), so that a call `fill_ghosts(b, f, bc, width, stream)` with b a cpu::Tag or a
// cuda::Tag finds that backend's definition by argument-dependent lookup. Passed by value and
// empty, a tag costs nothing. Only dispatch/backend.hpp's on_backend makes one from where the
// memory lives: callers never name a backend.
#pragma once

namespace strata::cpu {
struct Tag {};
}  // namespace strata::cpu

namespace strata::cuda {
struct Tag {};
}  // namespace strata::cuda
