// One entry per stencil family of the temporal-blocking passes (temporal.cu), each defined
// in its own translation unit (<family>.cu) so that the kernels compile in parallel.
#pragma once

#include <span>

#include "strata/boundary.hpp"
#include "strata/field.hpp"
#include "strata/steps.hpp"

namespace strata::cuda::temporal {

// The star of radius R (instantiated for R = 1..4, each in temporal_star<R>.cu) and sym27.
template <class T, int R>
bool star(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in,
          Field<T>& out, void* stream);
template <class T>
bool sym27(int k, std::span<const double> c, const StepOptions& o, const Boundary& bc, const Field<T>& in,
           Field<T>& out, void* stream);

}  // namespace strata::cuda::temporal
