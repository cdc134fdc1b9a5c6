// The wave solver's CUDA backend in a build without CUDA: the factory refuses, so the driver
// (src/solvers/wave/solver.cpp) picks a backend without #if.
#include "backend/wave.hpp"
#include "strata/error.hpp"

namespace strata::cuda {

template <class T>
std::unique_ptr<wave::Backend<T>> make_wave_backend(const wave::Setup&) {
  throw Error("device \"cuda\": strata was built without CUDA");
}

template std::unique_ptr<wave::Backend<float>> make_wave_backend(const wave::Setup&);
template std::unique_ptr<wave::Backend<double>> make_wave_backend(const wave::Setup&);

}  // namespace strata::cuda
