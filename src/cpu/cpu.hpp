// The CPU backend: plain loops, double accumulation, OpenMP over z. It is the oracle the
// CUDA kernels are tested against, so it shares no code with them beyond the index map.
#pragma once

#include "backend/stencil.hpp"  // fill_ghosts, apply_interior
#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"

namespace strata::cpu {

// Threads pay off only when a pass is long against a fork/join (and against spinning
// waits on a shared machine, where two threads ran small grids up to 10x slower than
// one): about a million points. Smaller passes run on one thread.
inline bool threaded(std::size_t points) { return points >= (std::size_t(1) << 20); }


// out = in on the interior: the copy kernel the CPU benchmark compares against.
template <class T>
void copy_interior(const Field<T>& in, Field<T>& out);

}  // namespace strata::cpu
