// Reductions over the interior of a Field (ghosts and padding never read) and over flat
// arrays: sum, dot, norm2, max_abs, min, max and a finite check. One pass over memory on
// either backend; results come back to the host, so device calls synchronise their stream.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

#include "strata/field.hpp"
#include "strata/stream.hpp"

namespace strata {

// Contract shared by every function below (docs/reductions.md has the derivations):
//
// Backend: the fields' / array's memory picks it (Memory::host: the CPU reference, OpenMP;
//   Memory::device: the CUDA kernels on `stream`, which is synchronised before returning).
//   The two backends agree within the accuracy bound below, not bitwise.
// Determinism: the same input, size and device (or host) give bitwise identical results
//   run to run: fixed work decomposition and fixed combination order, no floating-point
//   atomics. Results do not depend on the number of OpenMP threads.
// Accuracy (sum, dot; norm2 through its sum of squares): with S = sum_i x_i (or a_i*b_i),
//   A = sum_i |x_i| (or |a_i*b_i|) and eps = std::numeric_limits<T>::epsilon(),
//     |result - S| <= log2(max(n, 2)) * eps * A       (the pairwise-summation bound)
//   float data accumulate in double; double data use compensated (TwoSum/Neumaier)
//   accumulation, so the actual error is usually near eps*|S| plus O(n*eps^2)*A.
//   norm2 does not rescale: the squares of double data beyond ~1e154 overflow to inf.
// Non-finite values: NaN propagates through every reduction (min, max and max_abs return
//   NaN when any value is NaN); a sum with +inf and no NaN or -inf is +inf.
// Empty flat arrays (n == 0): sum = dot = norm2 = 0, max_abs = 0, min = +inf,
//   max = -inf, check_finite reports all_finite. `data` may then be null.
// Flat device arrays must be device memory of the current device (checked); 16-byte
//   aligned ones (anything from cudaMalloc) take the vectorised path.
// Concurrency: device reductions use one small workspace per device (allocated on first
//   use, kept for the process); concurrent calls from several host threads are
//   serialised on it.

template <class T>
double sum(const Field<T>& f, Stream stream = {});
template <class T>
double sum(const T* data, std::size_t n, Memory memory, Stream stream = {});

// sum_i a_i * b_i. Fields must have the same extent and memory (ghost widths may differ).
template <class T>
double dot(const Field<T>& a, const Field<T>& b, Stream stream = {});
template <class T>
double dot(const T* a, const T* b, std::size_t n, Memory memory, Stream stream = {});

// sqrt(sum_i x_i^2).
template <class T>
double norm2(const Field<T>& f, Stream stream = {});
template <class T>
double norm2(const T* data, std::size_t n, Memory memory, Stream stream = {});

// max_i |x_i| (the inf-norm), exact.
template <class T>
T max_abs(const Field<T>& f, Stream stream = {});
template <class T>
T max_abs(const T* data, std::size_t n, Memory memory, Stream stream = {});

// Smallest / largest value, exact.
template <class T>
T min(const Field<T>& f, Stream stream = {});
template <class T>
T min(const T* data, std::size_t n, Memory memory, Stream stream = {});
template <class T>
T max(const Field<T>& f, Stream stream = {});
template <class T>
T max(const T* data, std::size_t n, Memory memory, Stream stream = {});

// Where the first non-finite value (NaN or +-inf) is. "First" is the lowest linear index
// in C order over the interior: index = (z * ny + y) * nx + x (the flat index for arrays).
template <class T>
struct FiniteReport {
  bool all_finite = true;
  std::size_t count = 0;  // how many values are non-finite
  std::size_t index = 0;  // linear index of the first one (valid when !all_finite)
  int x = -1, y = -1, z = -1;  // its interior coordinates (fields only; -1 for arrays)
  T value = 0;            // the value found there
};

template <class T>
FiniteReport<T> check_finite(const Field<T>& f, Stream stream = {});
template <class T>
FiniteReport<T> check_finite(const T* data, std::size_t n, Memory memory, Stream stream = {});

// For messages, the CLI's and Python's alike. describe: "3 non-finite values of 512 (0.586%),
// the first nan at (x, y, z) = (2, 3, 0)" (a flat array: "at index 14"). nonfinite_result:
// "the result holds ...", then, when the input's report is given, "; the input holds ..." or
// "; the input is finite: the computation overflows f32 on these values".
template <class T>
std::string describe(const FiniteReport<T>& r, std::size_t points);
template <class T>
std::string nonfinite_result(const FiniteReport<T>& result, const FiniteReport<T>* input,
                             std::size_t points);

}  // namespace strata
