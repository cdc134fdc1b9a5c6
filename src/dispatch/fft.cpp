// fft_solve dispatch: device fields only, to the CUDA backend (whose stubs refuse in a
// build without CUDA).
#include "dispatch/fft.hpp"

#include "backend/fft.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {
void require_device(Memory f, Memory u) {
  require(f == Memory::device && u == Memory::device, "the fft solver runs on the GPU: use device fields (--device cuda)");
}
}  // namespace

template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, Stream stream) {
  require_device(f.memory(), u.memory());
  cuda::fft_solve(h, f, u, stream.handle);
}

template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u) {
  require_device(f.memory(), u.memory());
  cuda::fft_prepare(f, u);
}

template void fft_solve(double, const Field<float>&, Field<float>&, Stream);
template void fft_solve(double, const Field<double>&, Field<double>&, Stream);
template void fft_prepare(const Field<float>&, const Field<float>&);
template void fft_prepare(const Field<double>&, const Field<double>&);

}  // namespace strata::poisson
