// What the imaging runs (gradient.cpp, born.cpp) share: the wave backends of a resolved
// device, and the forward field's second time difference less the source step n injected,
// u_{n+1} - 2 u_n + u_{n-1} - S s_n, which equals (v dt / h)^2 (Lap u_n + CPML terms): the
// factor the gradient correlates with the adjoint and the Born operator scales by -v^2 dm.
#pragma once

#include <memory>
#include <vector>

#include "backend/wave.hpp"
#include "backend/wave_adjoint.hpp"
#include "solvers/imaging/gradient.hpp"
#include "strata/device.hpp"

namespace strata::imaging {

template <class T>
std::unique_ptr<wave::Backend<T>> forward_backend(Device device, const wave::Setup& s);
template <class T>
std::unique_ptr<wave::AdjointBackend<T>> adjoint_backend(Device device, const wave::Setup& s);

// out (dense, points values) = next - 2 now + prev less step n's injection of `shot`.
template <class T>
void second_difference(const wave::Setup& s, const Shot& shot, int n, const T* next, const T* now,
                       const T* prev, std::vector<double>& out);

}  // namespace strata::imaging
