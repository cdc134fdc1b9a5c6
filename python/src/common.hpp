// What the binding files of strata._strata share: the Python-side Field (PyField), the
// reading of dtype/device/shape arguments, array operands (NumPy, CuPy, PyTorch or any
// DLPack producer, host or CUDA) and the arrays handed back in the caller's own framework.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "strata/field.hpp"
#include "strata/poisson.hpp"

namespace strata::python {

namespace nb = nanobind;

using Array = nb::ndarray<nb::ro>;  // any array; dtype, device and strides checked here

struct PyField {
  std::variant<Field<float>, Field<double>> f;
  Precision precision() const { return f.index() == 0 ? Precision::f32 : Precision::f64; }
  Memory memory() const { return std::visit([](auto& x) { return x.memory(); }, f); }
  template <class Fn>
  decltype(auto) visit(Fn&& fn) { return std::visit(fn, f); }
  template <class T>
  Field<T>& as() { return std::get<Field<T>>(f); }
};

const char* dtype_name(Precision p);
const char* device_name(Memory m);
std::string kind_of(nb::handle h);  // the Python type's name, for messages
Precision parse_dtype(nb::handle dtype);
Memory field_memory(const std::string& device);  // "cpu" | "cuda" (strata::parse_device's words)
Extent parse_shape(nb::handle shape);  // NumPy order (nz, ny, nx)
Precision parse_precision(const std::string& p, const char* fn);  // "f32"/"float32" ...

// An argument that is a strata.Field or a C-contiguous float32/float64 array.
struct Operand {
  PyField* field = nullptr;
  std::optional<Array> array;
  Precision precision = Precision::f64;
  Memory memory = Memory::host;
};
// Throws TypeError (wrong kind or dtype) or ValueError (not contiguous, unknown device).
Operand operand(nb::handle h, const char* fn, const char* arg);
Extent extent_3d(const Array& a, const char* fn, const char* arg);

// A Field over a C-contiguous 3D array's memory (no copy, ghost 0).
template <class T>
Field<T> wrap_dense(const Array& a, Extent n, Memory memory) {
  return Field<T>::wrap(static_cast<T*>(const_cast<void*>(a.data())),
                        Layout::dense(n, sizeof(T)), memory);
}

// A dict from alternating keys and values: make_dict("step", 3, "final", true).
inline void fill_dict(nb::dict&) {}
template <class V, class... Rest>
void fill_dict(nb::dict& d, const char* key, V&& value, Rest&&... rest) {
  d[key] = std::forward<V>(value);
  fill_dict(d, std::forward<Rest>(rest)...);
}
template <class... Args>
nb::dict make_dict(Args&&... args) {
  nb::dict d;
  fill_dict(d, std::forward<Args>(args)...);
  return d;
}

// A strided view of a Field's interior (or whole allocation) in `like`'s framework: NumPy
// for a host Field when like is None, else the framework of the array `like` (NumPy, CuPy,
// PyTorch; a bare DLPack array otherwise). `owner` stays alive as long as the view does.
template <class T>
nb::object view(Field<T>& f, nb::handle owner, bool padded, nb::handle like = nb::none());

// The solve's options from strata.poisson.solve's and strata.run.poisson's keywords, one
// reading of the words for both (rtol < 0: the default).
PoissonOptions poisson_options(const std::string& bc, const std::string& solver, double rtol,
                               double atol, const std::string& op, int max_iter,
                               const std::string& smoother, bool mixed, double h);

}  // namespace strata::python
