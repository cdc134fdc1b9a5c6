// The CUDA side of the row seam (backend/rows.hpp) in a build without CUDA: every call is
// refused. The dispatch layer refuses device memory before it gets here; these keep every
// path ending in a clear message rather than a link error or an #if in the callers.
#include "backend/rows.hpp"
#include "nocuda/refuse.hpp"

namespace strata::cuda {

using nocuda::refuse;

template <class T>
double sum(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
double dot(const RowShape&, Strided<const T>, Strided<const T>, void*) { refuse(); }
template <class T>
double sum_squares(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
T max_abs(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
T min_value(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
T max_value(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
FiniteReport<T> check_finite(const RowShape&, Strided<const T>, void*) { refuse(); }
template <class T>
void fill(const RowShape&, Strided<T>, T, void*) { refuse(); }
template <class T>
void copy(const RowShape&, Strided<const T>, Strided<T>, void*) { refuse(); }
template <class T>
void scale(const RowShape&, T, Strided<T>, void*) { refuse(); }
template <class T>
void axpy(const RowShape&, T, Strided<const T>, Strided<T>, void*) { refuse(); }
template <class T>
void axpby(const RowShape&, T, Strided<const T>, T, Strided<T>, void*) { refuse(); }
template <class T>
double axpby_sum_squares(const RowShape&, T, Strided<const T>, T, Strided<T>, void*) { refuse(); }
template <class T>
double sub_sum_squares(const RowShape&, Strided<const T>, Strided<const T>, Strided<T>, void*) {
  refuse();
}

#include "backend/rows_instances.inc"

}  // namespace strata::cuda
