// The cuFFT Poisson solve in a build without CUDA (backend/fft.hpp): refused, with the
// message the dispatch used to give, so it needs no #if.
#include "backend/fft.hpp"

#include "strata/error.hpp"

namespace strata::cuda {

template <class T>
void fft_solve(double, const Field<T>&, Field<T>&, void*) {
  throw Error("the fft solver needs a CUDA build");
}
template <class T>
void fft_prepare(const Field<T>&, const Field<T>&) {
  throw Error("the fft solver needs a CUDA build");
}

template void fft_solve(double, const Field<float>&, Field<float>&, void*);
template void fft_solve(double, const Field<double>&, Field<double>&, void*);
template void fft_prepare(const Field<float>&, const Field<float>&);
template void fft_prepare(const Field<double>&, const Field<double>&);

}  // namespace strata::cuda
