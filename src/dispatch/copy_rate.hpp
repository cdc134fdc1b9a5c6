// The device's copy rate on a grid (GB/s counting one read and one write per point): the
// yardstick a GPU kernel's rate is reported against (wave::Report::copy_gb_per_s). Not public:
// the library's run drivers use it. Only device fields are measured: on the CPU the ratio
// says nothing (it varied 1.78, 0.039, 0.019 across similar wave runs).
#pragma once

#include "strata/field.hpp"
#include "strata/stream.hpp"

namespace strata {

// Times the 2.5D copy kernel `strata bench` measures, in -> out over the interior: one
// warm-up launch, then the fastest of 5 launches timed with CUDA events. in and out are
// distinct device fields of one layout; out's interior is overwritten. Synchronous.
template <class T>
double copy_gb_per_s(const Field<T>& in, Field<T>& out, Stream stream = {});

}  // namespace strata
