// The CPU's spectral Poisson solve (backend/fft.hpp) in a build without its FFT library
// (KissFFT, CMake's STRATA_CPU_FFT): refused, naming the package to install, so that the
// dispatch and the solver need no #if. CMake compiles this file or src/cpu/fft.cpp.
#include "backend/fft.hpp"
#include "strata/error.hpp"

namespace strata::cpu {

namespace {
[[noreturn]] void refuse() {
  throw Error(cpu_fft_refusal());
}
}  // namespace

template <class T>
void fft_solve(Tag, double, const Field<T>&, Field<T>&, void*) {
  refuse();
}
template <class T>
void fft_prepare(Tag, const Field<T>&, const Field<T>&) {
  refuse();
}

template void fft_solve(Tag, double, const Field<float>&, Field<float>&, void*);
template void fft_solve(Tag, double, const Field<double>&, Field<double>&, void*);
template void fft_prepare(Tag, const Field<float>&, const Field<float>&);
template void fft_prepare(Tag, const Field<double>&, const Field<double>&);

}  // namespace strata::cpu
