// The direct method (fft): one application of A^-1 per run by the spectral solve of the
// periodic 7-point problem (solve.cpp's validate checks the problem before any work), on
// the backend that holds the fields: KissFFT on the CPU, cuFFT on the GPU.
#include "dispatch/fft.hpp"
#include "solvers/poisson/method.hpp"

namespace strata::poisson {

namespace {

template <class T>
class SpectralSolve final : public Method<T> {
public:
  explicit SpectralSolve(Solve<T>& S) { fft_prepare(S.r0, S.e); }  // plans are setup, not solve

  Stop run(Solve<T>& S) override {
    fft_solve(S.h, S.r0, S.e, S.s);
    S.rep.iterations = ++S.it;
    return Stop::met;
  }
  // A solve: f read and the spectrum written, the spectrum read and written by the
  // division, read again and u written (6 values a point).
  double bytes(const Solve<T>& S) const override { return S.grid_bytes(6.0 * S.it); }
};

}  // namespace

template <class T>
std::unique_ptr<Method<T>> make_fft(Solve<T>& S) {
  return std::make_unique<SpectralSolve<T>>(S);
}

template std::unique_ptr<Method<float>> make_fft(Solve<float>&);
template std::unique_ptr<Method<double>> make_fft(Solve<double>&);

}  // namespace strata::poisson
