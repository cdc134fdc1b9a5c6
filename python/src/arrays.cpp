// Reading Python arguments into strata terms, and the two directions of array sharing:
// an incoming array (any DLPack/buffer producer, host or CUDA) checked and seen as a dense
// Field, and a Field handed out as a strided view in the framework the caller uses.
#include <nanobind/stl/string.h>

#include <climits>
#include <cstdint>

#include "common.hpp"
#include "strata/device.hpp"

namespace strata::python {

const char* dtype_name(Precision p) { return p == Precision::f32 ? "float32" : "float64"; }
const char* device_name(Memory m) { return m == Memory::host ? "cpu" : "cuda"; }

std::string kind_of(nb::handle h) { return nb::cast<std::string>(nb::type_name(h.type())); }

// "float32" / "float64" from anything numpy.dtype accepts ('f4', np.float64, float ...).
Precision parse_dtype(nb::handle dtype) {
  const std::string name =
      nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(dtype).attr("name"));
  if (name == "float32") return Precision::f32;
  if (name == "float64") return Precision::f64;
  throw nb::type_error(("strata.Field: dtype " + name + " is not supported: strata computes "
                        "in float32 or float64").c_str());
}

Precision parse_precision(const std::string& p, const char* fn) {
  if (p == "f32" || p == "float32") return Precision::f32;
  if (p == "f64" || p == "float64") return Precision::f64;
  throw nb::value_error((std::string(fn) + ": precision '" + p +
                         "' is unknown: allowed 'f32' ('float32'), 'f64' ('float64')").c_str());
}

Memory field_memory(const std::string& device) {
  // The one device vocabulary (strata/device.hpp); a Field lives in one memory, named.
  const Device d = strata::parse_device(device, "strata.Field: device");
  if (d == Device::automatic)
    throw nb::value_error("strata.Field: device 'auto': a Field's memory is named, 'cpu' or 'cuda'");
  return d == Device::cuda ? Memory::device : Memory::host;
}

Extent parse_shape(nb::handle shape) {
  if (!nb::isinstance<nb::sequence>(shape) || nb::len(shape) != 3)
    throw nb::value_error("strata.Field: shape must be a sequence of 3 ints (nz, ny, nx)");
  int v[3];
  for (int i = 0; i < 3; ++i) {
    const long long x = nb::cast<long long>(shape[i]);
    if (x < 1 || x > INT_MAX)
      throw nb::value_error(("strata.Field: shape[" + std::to_string(i) + "] = " +
                             std::to_string(x) + " is invalid: each extent must be >= 1")
                                .c_str());
    v[i] = int(x);
  }
  return {v[2], v[1], v[0]};
}

// ---- incoming arrays ----------------------------------------------------------------

namespace {

Memory array_memory(const Array& a, const char* fn, const char* arg) {
  if (a.device_type() == nb::device::cpu::value) return Memory::host;
  if (a.device_type() == nb::device::cuda::value) return Memory::device;
  throw nb::value_error((std::string(fn) + ": " + arg + " lives on DLPack device type " +
                         std::to_string(a.device_type()) +
                         ": strata takes host (CPU) or CUDA arrays").c_str());
}

Precision array_precision(const Array& a, const char* fn, const char* arg) {
  if (a.dtype() == nb::dtype<float>()) return Precision::f32;
  if (a.dtype() == nb::dtype<double>()) return Precision::f64;
  throw nb::type_error((std::string(fn) + ": " + arg + " has an unsupported dtype: strata "
                        "computes in float32 or float64 (convert with .astype(np.float64))")
                           .c_str());
}

void require_c_contiguous(const Array& a, const char* fn, const char* arg) {
  if (a.size() == 0) return;  // any strides describe an empty array
  int64_t expected = 1;
  for (std::size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected)
      throw nb::value_error((std::string(fn) + ": " + arg + " is not C-contiguous; pass a "
                             "contiguous copy (np/cupy.ascontiguousarray, tensor.contiguous())")
                                .c_str());
    expected *= int64_t(a.shape(i));
  }
}

}  // namespace

Operand operand(nb::handle h, const char* fn, const char* arg) {
  Operand o;
  if (nb::try_cast<PyField*>(h, o.field, false) && o.field) {
    o.precision = o.field->precision();
    o.memory = o.field->memory();
    return o;
  }
  o.field = nullptr;
  Array a;
  if (!nb::try_cast<Array>(h, a, false)) {
    if (nb::hasattr(h, "dtype"))  // an array nanobind cannot import: byte-swapped, object ...
      throw nb::type_error((std::string(fn) + ": " + arg + " (" + kind_of(h) + " with " +
                            nb::cast<std::string>(nb::repr(h.attr("dtype"))) +
                            ") cannot be shared with strata: a float32 or float64 array in "
                            "native byte order is needed (np.ascontiguousarray(" + arg +
                            ", dtype=np.float64))")
                               .c_str());
    throw nb::type_error((std::string(fn) + ": " + arg + " must be a strata.Field or a NumPy, "
                          "CuPy or PyTorch array, got " + kind_of(h))
                             .c_str());
  }
  o.memory = array_memory(a, fn, arg);
  o.precision = array_precision(a, fn, arg);
  require_c_contiguous(a, fn, arg);
  o.array = a;
  return o;
}

Extent extent_3d(const Array& a, const char* fn, const char* arg) {
  if (a.ndim() != 3)
    throw nb::value_error((std::string(fn) + ": " + arg + " has rank " +
                           std::to_string(a.ndim()) + ": a 3D array [z][y][x] is needed")
                              .c_str());
  for (int i = 0; i < 3; ++i)
    if (a.shape(i) < 1 || a.shape(i) > INT_MAX)
      throw nb::value_error((std::string(fn) + ": " + arg + " has an empty or too large axis")
                                .c_str());
  return {int(a.shape(2)), int(a.shape(1)), int(a.shape(0))};
}

// ---- outgoing views -----------------------------------------------------------------

namespace {

enum class Framework { numpy, cupy, pytorch, dlpack };

Framework framework_of(nb::handle like, Memory m) {
  if (like.is_none()) return m == Memory::host ? Framework::numpy : Framework::dlpack;
  const std::string module = nb::cast<std::string>(nb::getattr(like.type(), "__module__", nb::str("")));
  if (module.rfind("numpy", 0) == 0) return Framework::numpy;
  if (module.rfind("cupy", 0) == 0) return Framework::cupy;
  if (module.rfind("torch", 0) == 0) return Framework::pytorch;
  return Framework::dlpack;
}

template <class Fw, class T>
nb::object make_view(T* base, const std::size_t (&shape)[3], const int64_t (&strides)[3],
                     nb::handle owner, Memory m) {
  const int dev = m == Memory::host ? nb::device::cpu::value : nb::device::cuda::value;
  // device id 0: strata allocates on the current device, which it leaves at 0.
  return nb::cast(nb::ndarray<Fw, T>(base, 3, shape, owner, strides, nb::dtype<T>(), dev, 0));
}

}  // namespace

template <class T>
nb::object view(Field<T>& f, nb::handle owner, bool padded, nb::handle like) {
  const Layout& L = f.layout();
  const std::size_t shape[3] = {
      std::size_t(padded ? L.planes : L.n.nz), std::size_t(padded ? L.rows : L.n.ny),
      std::size_t(padded ? L.pitch : L.n.nx)};
  const int64_t strides[3] = {int64_t(L.plane), int64_t(L.pitch), 1};  // in elements
  T* base = padded ? f.data() : f.origin();
  const Memory m = f.memory();
  switch (framework_of(like, m)) {
    case Framework::numpy:
      if (m != Memory::host)
        throw nb::value_error("strata: a NumPy view needs a host Field (device='cpu')");
      return make_view<nb::numpy>(base, shape, strides, owner, m);
    case Framework::cupy: return make_view<nb::cupy>(base, shape, strides, owner, m);
    case Framework::pytorch: return make_view<nb::pytorch>(base, shape, strides, owner, m);
    case Framework::dlpack: break;
  }
  nb::object nd = make_view<nb::array_api>(base, shape, strides, owner, m);
  if (m == Memory::host) return nd;
  // A CUDA view: the DLPack array plus __cuda_array_interface__ (strata/_views.py).
  const int64_t esize = int64_t(sizeof(T));
  return nb::module_::import_("strata._views").attr("CudaView")(
      nd, reinterpret_cast<std::uintptr_t>(base), nb::make_tuple(shape[0], shape[1], shape[2]),
      nb::make_tuple(strides[0] * esize, strides[1] * esize, esize),
      sizeof(T) == 4 ? "<f4" : "<f8", owner);
}

template nb::object view(Field<float>&, nb::handle, bool, nb::handle);
template nb::object view(Field<double>&, nb::handle, bool, nb::handle);

}  // namespace strata::python
