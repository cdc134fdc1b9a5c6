// The copy rate's timing in a build without CUDA: there is no device to time.
#include "backend/copy_rate.hpp"
#include "strata/error.hpp"

namespace strata::cuda {

template <class T>
double time_copy_kernel_ms(const Field<T>&, Field<T>&, void*, int, int) {
  throw Error("strata was built without CUDA: the GPU's copy rate cannot be measured");
}

template double time_copy_kernel_ms(const Field<float>&, Field<float>&, void*, int, int);
template double time_copy_kernel_ms(const Field<double>&, Field<double>&, void*, int, int);

}  // namespace strata::cuda
