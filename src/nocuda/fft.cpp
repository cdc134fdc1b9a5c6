// The cuFFT Poisson solve in a build without CUDA (backend/fft.hpp): refused with the message
// every device request gets (host fields go to the CPU's FFT path), so the dispatch
// needs no #if.
#include "backend/fft.hpp"

#include "nocuda/refuse.hpp"

namespace strata::cuda {

template <class T>
void fft_solve(double, const Field<T>&, Field<T>&, void*) {
  nocuda::refuse();
}
template <class T>
void fft_prepare(const Field<T>&, const Field<T>&) {
  nocuda::refuse();
}

template void fft_solve(double, const Field<float>&, Field<float>&, void*);
template void fft_solve(double, const Field<double>&, Field<double>&, void*);
template void fft_prepare(const Field<float>&, const Field<float>&);
template void fft_prepare(const Field<double>&, const Field<double>&);

}  // namespace strata::cuda
