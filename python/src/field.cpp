// strata.Field: padded storage on the host or a CUDA device, with zero-copy views of its
// interior (NumPy on the host; __dlpack__ and __cuda_array_interface__ on a device).
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "bindings.hpp"
#include "common.hpp"
#include "strata/device.hpp"

namespace strata::python {

using namespace nb::literals;

namespace {

nb::tuple shape_of(Extent n) { return nb::make_tuple(n.nz, n.ny, n.nx); }

PyField from_array(nb::handle a, int ghost) {
  const char* fn = "strata.Field.from_array";
  Operand o = operand(a, fn, "a");
  if (o.field) throw nb::type_error("strata.Field.from_array: a is already a Field");
  const Extent n = extent_3d(*o.array, fn, "a");
  auto make = [&](auto tag) {
    using T = decltype(tag);
    Field<T> f(n, ghost, o.memory);
    {
      nb::gil_scoped_release unlocked;
      copy(wrap_dense<T>(*o.array, n, o.memory), f);
    }
    return PyField{std::move(f)};
  };
  return o.precision == Precision::f32 ? make(float{}) : make(double{});
}

// np.asarray(field): NumPy 2's protocol, __array__(dtype=None, copy=None).
nb::object host_array(nb::handle self, nb::handle dtype, nb::handle copy) {
  PyField& f = nb::cast<PyField&>(self);
  if (f.memory() != Memory::host)
    throw nb::type_error(
        "strata.Field: a CUDA Field cannot become a NumPy array without a copy to the host, "
        "which strata does not make implicitly: copy it explicitly "
        "(cupy.asnumpy(cupy.asarray(f)), torch.from_dlpack(f).cpu().numpy()), or use a host "
        "Field (device='cpu')");
  nb::object v = f.visit([&](auto& x) { return view(x, self, false); });
  nb::module_ np = nb::module_::import_("numpy");
  const bool convert = !dtype.is_none() && !np.attr("dtype")(dtype).equal(v.attr("dtype"));
  if (convert) {
    if (!copy.is_none() && !nb::cast<bool>(copy))
      throw nb::value_error(("strata.Field: a " + std::string(dtype_name(f.precision())) +
                             " Field cannot be seen as " +
                             nb::cast<std::string>(nb::str(np.attr("dtype")(dtype))) +
                             " without a copy (copy=False)")
                                .c_str());
    return v.attr("astype")(dtype);
  }
  if (!copy.is_none() && nb::cast<bool>(copy)) return v.attr("copy")();
  return v;
}

// The CUDA view's interface (strata/_views.py), the Field itself the object consumers keep.
nb::object cuda_interface(nb::handle self) {
  PyField& f = nb::cast<PyField&>(self);
  if (f.memory() == Memory::host)
    throw nb::attribute_error(
        "strata.Field: a host Field has no __cuda_array_interface__ (use np.asarray(f))");
  return f.visit([&](auto& x) { return view(x, self, false); }).attr("__cuda_array_interface__");
}

}  // namespace

void bind_field(nb::module_& m) {
  m.def("cuda_available", &cuda_available,
        "Whether this build has the CUDA backend and a CUDA device is visible");
  m.def("cuda_unavailable_reason", &cuda_unavailable_reason);
  m.def("cpu_fft_available", [] { return build_info().cpu_fft; },
        "Whether this build has the CPU's FFT (KissFFT): poisson.solve(solver='fft') on the CPU");
  m.def("cpu_fft_unavailable_reason", &cpu_fft_unavailable_reason,
        "Why the fft solver cannot solve on the CPU, naming the package to install ('' if it can)");
  m.def("synchronize", [] {
    nb::gil_scoped_release unlocked;
    device_synchronize();
  }, "Waits until all device work strata queued is done (nothing on the CPU)");
  nb::class_<PyField>(m, "Field", nb::is_weak_referenceable(),
                      "A 3D grid of shape (nz, ny, nx) with `ghost` layers on every side, in "
                      "strata's padded layout (x fastest, rows' interiors 256-byte aligned), on the host "
                      "(device='cpu') or the current CUDA device (device='cuda'). Zero-filled.")
      .def("__init__",
           [](PyField* self, nb::handle shape, nb::handle dtype, int ghost, const std::string& device) {
             const Extent n = parse_shape(shape);
             const Precision p = parse_dtype(dtype);
             const Memory mem = field_memory(device);
             if (p == Precision::f32)
               new (self) PyField{Field<float>(n, ghost, mem)};
             else
               new (self) PyField{Field<double>(n, ghost, mem)};
           },
           "shape"_a, "dtype"_a = "float64", "ghost"_a = kDefaultGhost, "device"_a = "cpu")
      .def_prop_ro("shape", [](PyField& f) { return f.visit([](auto& x) { return shape_of(x.extent()); }); },
                   "(nz, ny, nx): the interior's shape")
      .def_prop_ro("dtype", [](PyField& f) {
             return nb::module_::import_("numpy").attr("dtype")(dtype_name(f.precision()));
           }, "numpy.dtype('float32') or numpy.dtype('float64')")
      .def_prop_ro("ndim", [](PyField&) { return 3; }, "3: the interior is [z][y][x]")
      .def_prop_ro("size",
                   [](PyField& f) { return f.visit([](auto& x) { return x.extent().points(); }); },
                   "nz * ny * nx: the interior's points")
      .def("__len__", [](PyField& f) { return f.visit([](auto& x) { return x.extent().nz; }); },
           "nz, as len() of the interior array")
      .def_prop_ro("ghost", [](PyField& f) { return f.visit([](auto& x) { return x.ghost(); }); })
      .def_prop_ro("device", [](PyField& f) { return device_name(f.memory()); },
                   "'cpu' or 'cuda'")
      .def_prop_ro("nbytes", [](PyField& f) {
             return f.visit([](auto& x) { return x.layout().bytes(); });
           }, "bytes in the allocation (ghosts and padding included)")
      .def_prop_ro("data_ptr", [](PyField& f) {
             return f.visit([](auto& x) { return reinterpret_cast<std::uintptr_t>(x.origin()); });
           }, "address of the interior point (0, 0, 0), as an int")
      .def_prop_ro("interior",
                   [](nb::handle self) {
                     return nb::cast<PyField&>(self).visit(
                         [&](auto& x) { return view(x, self, false); });
                   },
                   "The interior, shape (nz, ny, nx), strided, sharing the Field's memory: a "
                   "NumPy array for a host Field; for a CUDA Field an object with __dlpack__ "
                   "and __cuda_array_interface__ (cupy.asarray, torch.from_dlpack). The Field "
                   "stays alive while the view does.")
      .def_prop_ro("padded",
                   [](nb::handle self) {
                     return nb::cast<PyField&>(self).visit(
                         [&](auto& x) { return view(x, self, true); });
                   },
                   "The whole allocation, shape (nz+2g, ny+2g, pitch): ghosts and row "
                   "padding included (a view, as `interior`)")
      .def("__dlpack__",
           [](nb::handle self, nb::kwargs kw) {
             nb::object v = nb::cast<PyField&>(self).visit(
                 [&](auto& x) { return view(x, self, false, nb::none()); });
             return v.attr("__dlpack__")(**kw);
           },
           "The interior through DLPack (np.from_dlpack(f), torch.from_dlpack(f))")
      .def("__dlpack_device__",
           [](PyField& f) { return nb::make_tuple(f.memory() == Memory::host ? 1 : 2, 0); })
      .def("__array__", &host_array, "dtype"_a = nb::none(), "copy"_a = nb::none(),
           "The interior as a NumPy array (np.asarray(f)): for a host Field the strided view that "
           "shares its memory (no copy unless copy=True or another dtype is asked for; copy=False "
           "with another dtype raises ValueError). A CUDA Field raises TypeError: NumPy cannot "
           "hold device memory, and strata does not copy it to the host behind your back")
      .def_prop_ro("__cuda_array_interface__", &cuda_interface,
                   "CUDA Fields only (version 3; an AttributeError on the host, so CuPy and Numba "
                   "see a host Field as no CUDA array): the interior's pointer, shape and strides")
      .def_static("from_array", &from_array, "a"_a, "ghost"_a = kDefaultGhost,
                  "A new Field holding a copy of a C-contiguous 3D float32/float64 array, on "
                  "the array's device (NumPy/host -> 'cpu', CuPy/PyTorch CUDA -> 'cuda')")
      .def("__repr__", [](PyField& f) {
        return f.visit([&](auto& x) {
          const Extent n = x.extent();
          return "strata.Field(shape=(" + std::to_string(n.nz) + ", " + std::to_string(n.ny) +
                 ", " + std::to_string(n.nx) + "), dtype=" + dtype_name(f.precision()) +
                 ", ghost=" + std::to_string(x.ghost()) + ", device=" + device_name(x.memory()) + ")";
        });
      });
}

}  // namespace strata::python
