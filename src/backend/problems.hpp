// The device side of the Poisson problems the CLI and tests generate, the seam the testing
// layer calls (src/cuda/problems.cu; src/nocuda/problems.cpp refuses without CUDA):
// separable products of per-axis tables (the manufactured right-hand sides and their exact
// solutions) and counter-based random fields, written and measured where the field lives,
// so a GPU run never builds a grid on the host. The values are those of the host loops in
// src/testing/manufactured.cpp, bit for bit.
#pragma once

#include <cstdint>

#include "strata/field.hpp"

namespace strata::cuda {

// f(x, y, z) = T(scale * (tx[x] * ty[y] * tz[z]) + offset) on the interior; tables on the host.
template <class T>
void fill_product(const double* tx, const double* ty, const double* tz, double scale, double offset, Field<T>& f,
                  void* stream);

// Over the interior, with e = offset + tx[x] ty[y] tz[z] and d = (u - shift_u) - (e - shift_e):
// out[0] = max |d|, out[1] = sum d^2, out[2] = sum (e - shift_e)^2 (double, fixed order).
template <class T>
void product_error(const double* tx, const double* ty, const double* tz, double offset, double shift_u,
                   double shift_e, const Field<T>& u, double out[3], void* stream);

// f(x, y, z) = T(uniform(-1, 1)) from splitmix64(seed + C-order index of the point).
template <class T>
void fill_random(Field<T>& f, std::uint64_t seed, void* stream);

}  // namespace strata::cuda
