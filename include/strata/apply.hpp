// Stencil passes over Fields. The backend follows the fields' memory: host fields run
// the plain CPU reference, device fields the CUDA kernels. Device work is asynchronous
// on the given stream (a cudaStream_t passed as Stream{handle}; {} is the default stream).
#pragma once

#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/stream.hpp"

namespace strata {

// Fills `width` ghost layers of every face of f from its interior according to bc
// (edges and corners included: axes are filled x, then y, then z, as np.pad does).
// Requires 1 <= width <= f.ghost().
template <class T>
void fill_ghosts(Field<T>& f, const Boundary& bc, int width, Stream stream = {});

// out = stencil(in) on every interior point; in's ghost layers must already hold the
// boundary values. out's ghosts and padding are not touched. in and out must be distinct
// fields (no aliasing) with the same extent and memory, ghost width >= stencil radius.
template <class T>
void apply_interior(const Stencil& stencil, const Field<T>& in, Field<T>& out,
                    Stream stream = {});

// fill_ghosts(in, bc, stencil.radius()) then apply_interior: in's interior is only read; its
// ghost layers are overwritten, except with Dirichlet 0 on a GPU, whose pass reads +0 beyond
// the interior without them (the same bits; in's ghosts are then left as they were).
template <class T>
void apply(const Stencil& stencil, Field<T>& in, Field<T>& out, const Boundary& bc,
           Stream stream = {});

}  // namespace strata
