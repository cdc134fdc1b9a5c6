// The device side of the generated Poisson problems (backend/problems.hpp) in a build
// without CUDA: device fields cannot be made there; these keep every path ending in a clear
// message rather than an #if in the caller.
#include "backend/problems.hpp"
#include "nocuda/refuse.hpp"

namespace strata::cuda {

using nocuda::refuse;

template <class T>
void fill_product(const double*, const double*, const double*, double, double, Field<T>&, void*) {
  refuse();
}
template <class T>
void product_error(const double*, const double*, const double*, double, double, double,
                   const Field<T>&, double*, void*) {
  refuse();
}
template <class T>
void fill_random(Field<T>&, std::uint64_t, void*) {
  refuse();
}

#define STRATA_INSTANTIATE(T)                                                                 \
  template void fill_product(const double*, const double*, const double*, double, double,     \
                             Field<T>&, void*);                                               \
  template void product_error(const double*, const double*, const double*, double, double,    \
                              double, const Field<T>&, double*, void*);                       \
  template void fill_random(Field<T>&, std::uint64_t, void*);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::cuda
