// fft_solve dispatch: checks the fields once, then on_backend hands host fields to the CPU
// backend (KissFFT; its stand-in refuses in a build without it) and device fields to CUDA
// (cuFFT).
#include "dispatch/fft.hpp"

#include <string>

#include "backend/fft.hpp"
#include "dispatch/backend.hpp"
#include "strata/error.hpp"

namespace strata::poisson {

namespace {
template <class T>
Memory checked_memory(const char* call, const Field<T>& f, const Field<T>& u) {
  require(!f.empty() && !u.empty(), std::string(call) + ": empty field");
  require(f.extent() == u.extent(), std::string(call) + ": f is " + f.extent().str() +
                                        " but u is " + u.extent().str() + "; extents must match");
  require(f.memory() == u.memory(),
          std::string(call) + ": f and u must both be host fields or both device fields");
  return f.memory();
}
}  // namespace

template <class T>
void fft_solve(double h, const Field<T>& f, Field<T>& u, Stream stream) {
  on_backend(checked_memory("fft_solve", f, u),
             [&](auto tag) { fft_solve(tag, h, f, u, stream.handle); });
}

template <class T>
void fft_prepare(const Field<T>& f, const Field<T>& u) {
  on_backend(checked_memory("fft_prepare", f, u), [&](auto tag) { fft_prepare(tag, f, u); });
}

template void fft_solve(double, const Field<float>&, Field<float>&, Stream);
template void fft_solve(double, const Field<double>&, Field<double>&, Stream);
template void fft_prepare(const Field<float>&, const Field<float>&);
template void fft_prepare(const Field<double>&, const Field<double>&);

}  // namespace strata::poisson
