// fft_solve dispatch: the CUDA backend when built with it, a clear error otherwise.
#include "dispatch/fft.hpp"

#include "strata/error.hpp"
#if STRATA_HAVE_CUDA
#include "cuda/fft.hpp"
#endif

namespace strata::poisson {

template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, Stream stream) {
  require(f.memory() == Memory::device && u.memory() == Memory::device,
          "the fft solver runs on the GPU: use device fields (--device cuda)");
#if STRATA_HAVE_CUDA
  cuda::fft_solve(h, f, u, stream.handle);
#else
  (void)h, (void)stream;
  throw Error("the fft solver needs a CUDA build");
#endif
}

template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u) {
  require(f.memory() == Memory::device && u.memory() == Memory::device,
          "the fft solver runs on the GPU: use device fields (--device cuda)");
#if STRATA_HAVE_CUDA
  cuda::fft_prepare(f, u);
#else
  throw Error("the fft solver needs a CUDA build");
#endif
}

template void fft_solve(double, const Field<float>&, Field<float>&, Stream);
template void fft_solve(double, const Field<double>&, Field<double>&, Stream);
template void fft_prepare(const Field<float>&, const Field<float>&);
template void fft_prepare(const Field<double>&, const Field<double>&);

}  // namespace strata::poisson
