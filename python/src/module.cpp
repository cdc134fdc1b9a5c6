// strata._strata: the nanobind extension behind `import strata`. A Field owns padded
// storage and hands out NumPy views of it (the view keeps the Field alive); apply and the
// reductions take a Field (used in place) or a C-contiguous NumPy array (copied into a
// padded Field, or wrapped with Field::wrap where no ghosts are needed). strata::Error
// becomes ValueError; the GIL is released around every pass over memory.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "strata/apply.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"
#include "strata/reduce.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace strata::python {
namespace {

using Array = nb::ndarray<nb::ro>;  // any array; dtype, device and strides checked here

struct PyField {
  std::variant<Field<float>, Field<double>> f;
  Precision precision() const { return f.index() == 0 ? Precision::f32 : Precision::f64; }
  template <class Fn>
  decltype(auto) visit(Fn&& fn) { return std::visit(fn, f); }
};

const char* dtype_name(Precision p) { return p == Precision::f32 ? "float32" : "float64"; }

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

Memory parse_device(const std::string& device) {
  if (device == "cpu") return Memory::host;
  if (device == "cuda") return Memory::device;
  throw nb::value_error(("strata: device '" + device + "' is unknown: allowed 'cpu', 'cuda'").c_str());
}

// NumPy order (nz, ny, nx) -> Extent.
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

nb::tuple shape_of(Extent n) { return nb::make_tuple(n.nz, n.ny, n.nx); }

// A NumPy array over part of f's allocation; `owner` (the Python Field) lives as long as it.
template <class T>
nb::object view(Field<T>& f, nb::handle owner, bool padded) {
  if (f.memory() != Memory::host)
    throw nb::value_error("strata.Field: a NumPy view needs a host field (device='cpu')");
  const Layout& L = f.layout();
  const std::size_t shape[3] = {
      std::size_t(padded ? L.planes : L.n.nz), std::size_t(padded ? L.rows : L.n.ny),
      std::size_t(padded ? L.pitch : L.n.nx)};
  const int64_t strides[3] = {int64_t(L.plane), int64_t(L.pitch), 1};  // in elements
  T* base = padded ? f.data() : f.origin();
  return nb::cast(nb::ndarray<nb::numpy, T>(base, 3, shape, owner, strides));
}

// ---- arrays -------------------------------------------------------------------------

Precision array_precision(const Array& a, const char* fn, const char* arg) {
  if (a.device_type() != nb::device::cpu::value)
    throw nb::value_error((std::string(fn) + ": " + arg + " is not in host memory: only NumPy "
                           "(CPU) arrays are supported so far")
                              .c_str());
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
      throw nb::value_error((std::string(fn) + ": " + arg + " is not C-contiguous; pass "
                             "np.ascontiguousarray(" + arg + ")")
                                .c_str());
    expected *= int64_t(a.shape(i));
  }
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

// A Field over a C-contiguous 3D array's memory (no copy, ghost 0).
template <class T>
Field<T> wrap_dense(const Array& a, Extent n) {
  return Field<T>::wrap(static_cast<T*>(const_cast<void*>(a.data())),
                        Layout::dense(n, sizeof(T)), Memory::host);
}

// An argument that is a strata.Field or an array of float32/float64 in host memory.
struct Operand {
  PyField* field = nullptr;
  std::optional<Array> array;
  Precision precision = Precision::f64;
};

Operand operand(nb::handle h, const char* fn, const char* arg) {
  Operand o;
  if (nb::try_cast<PyField*>(h, o.field, false) && o.field) {
    o.precision = o.field->precision();
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
    throw nb::type_error((std::string(fn) + ": " + arg + " must be a strata.Field or a NumPy "
                          "array, got " + kind_of(h))
                             .c_str());
  }
  o.precision = array_precision(a, fn, arg);
  require_c_contiguous(a, fn, arg);
  o.array = a;
  return o;
}

// ---- apply --------------------------------------------------------------------------

Stencil make_stencil(const std::string& name, const std::optional<std::vector<double>>& c) {
  const std::vector<double> none;
  const std::vector<double>& k = c ? *c : none;
  if (name == "7pt") return c ? Stencil::from_name("7pt", 1, k) : Stencil::laplacian(2);
  if (name.size() == 5 && name.rfind("star", 0) == 0 && name[4] >= '1' && name[4] <= '4') {
    const int r = name[4] - '0';
    return c ? Stencil::star(r, k) : Stencil::laplacian(2 * r);
  }
  if (name == "sym27") return c ? Stencil::from_name("sym27", 1, k) : Stencil::fe27();
  if (name == "box27") {
    if (!c)
      throw nb::value_error("strata.apply: box27 needs coeffs: 27 values K[dz+1][dy+1][dx+1]");
    return Stencil::box27(k);
  }
  throw nb::value_error(("strata.apply: unknown stencil '" + name +
                         "': allowed 7pt, star1, star2, star3, star4, sym27, box27")
                            .c_str());
}

template <class T>
nb::object apply_field(const Stencil& s, const Boundary& bc, PyField& x, nb::handle x_obj,
                       nb::handle out_obj) {
  Field<T>& in = std::get<Field<T>>(x.f);
  if (out_obj.is_none()) {
    Field<T> out(in.extent(), in.ghost(), in.memory());
    {
      nb::gil_scoped_release unlocked;
      apply(s, in, out, bc);
    }
    return nb::cast(PyField{std::move(out)});
  }
  PyField* o = nullptr;
  if (!nb::try_cast<PyField*>(out_obj, o, false) || !o)
    throw nb::type_error(("strata.apply: out must be a strata.Field when x is one, got " +
                          kind_of(out_obj)).c_str());
  if (out_obj.is(x_obj))
    throw nb::value_error("strata.apply: out must be a different Field from x (a stencil "
                          "pass cannot run in place)");
  if (o->precision() != x.precision())
    throw nb::type_error("strata.apply: out's dtype differs from x's");
  Field<T>& out = std::get<Field<T>>(o->f);
  {
    nb::gil_scoped_release unlocked;
    apply(s, in, out, bc);
  }
  return nb::borrow(out_obj);
}

template <class T>
nb::object apply_array(const Stencil& s, const Boundary& bc, const Array& x, nb::handle out_obj) {
  const char* fn = "strata.apply";
  const Extent n = extent_3d(x, fn, "x");
  std::optional<nb::ndarray<>> out;
  if (!out_obj.is_none()) {
    nb::ndarray<> o;
    if (!nb::try_cast<nb::ndarray<>>(out_obj, o, false))
      throw nb::type_error(("strata.apply: out must be a writable NumPy array when x is one, got " +
                            kind_of(out_obj)).c_str());
    const Array ro(o.handle());
    if (array_precision(ro, fn, "out") != precision_of<T>)
      throw nb::type_error("strata.apply: out's dtype differs from x's");
    require_c_contiguous(ro, fn, "out");
    if (!(extent_3d(ro, fn, "out") == n))
      throw nb::value_error("strata.apply: out's shape differs from x's");
    out = o;
  }
  std::unique_ptr<T[]> fresh;
  T* result = out ? static_cast<T*>(out->data()) : (fresh.reset(new T[n.points()]), fresh.get());
  {
    nb::gil_scoped_release unlocked;
    const int ghost = std::max(s.radius(), 1);
    Field<T> in(n, ghost), res(n, ghost);
    copy(wrap_dense<T>(x, n), in);  // before out is written: out may be x
    apply(s, in, res, bc);
    Field<T> dst = Field<T>::wrap(result, Layout::dense(n, sizeof(T)), Memory::host);
    copy(res, dst);
  }
  if (out) return nb::borrow(out_obj);
  nb::capsule owner(fresh.get(), [](void* p) noexcept { delete[] static_cast<T*>(p); });
  fresh.release();
  const std::size_t shape[3] = {std::size_t(n.nz), std::size_t(n.ny), std::size_t(n.nx)};
  return nb::cast(nb::ndarray<nb::numpy, T>(result, 3, shape, owner));
}

nb::object py_apply(const std::string& stencil, nb::handle x, const std::string& bc,
                    nb::handle out, const std::optional<std::vector<double>>& coeffs) {
  const Stencil s = make_stencil(stencil, coeffs);
  const Boundary b = Boundary::parse(bc);
  Operand o = operand(x, "strata.apply", "x");
  if (o.field)
    return o.precision == Precision::f32 ? apply_field<float>(s, b, *o.field, x, out)
                                         : apply_field<double>(s, b, *o.field, x, out);
  return o.precision == Precision::f32 ? apply_array<float>(s, b, *o.array, out)
                                       : apply_array<double>(s, b, *o.array, out);
}

// ---- reductions ---------------------------------------------------------------------

// f(Field) for a Field, f(pointer, count) for a flat array.
template <class FieldFn, class FlatFn>
double reduce(nb::handle x, const char* fn, FieldFn on_field, FlatFn on_flat) {
  Operand o = operand(x, fn, "x");
  if (o.field)
    return o.field->visit([&](auto& f) {
      nb::gil_scoped_release unlocked;
      return double(on_field(f));
    });
  const Array& a = *o.array;
  auto run = [&](auto* p) {
    nb::gil_scoped_release unlocked;
    return double(on_flat(p, a.size()));
  };
  return o.precision == Precision::f32 ? run(static_cast<const float*>(a.data()))
                                       : run(static_cast<const double*>(a.data()));
}

template <class T>
double dot_as_fields(Operand& a, Operand& b) {
  // A Field with an array: the array (3D, the Field's shape) is wrapped with ghost 0.
  std::optional<Field<T>> wa, wb;
  auto field_of = [](Operand& o, std::optional<Field<T>>& w, Extent n, const char* arg) -> Field<T>& {
    if (o.field) return std::get<Field<T>>(o.field->f);
    const Extent e = extent_3d(*o.array, "strata.dot", arg);
    if (!(e == n))
      throw nb::value_error("strata.dot: a and b have different shapes");
    w.emplace(wrap_dense<T>(*o.array, e));
    return *w;
  };
  const Extent n = a.field ? std::get<Field<T>>(a.field->f).extent()
                           : std::get<Field<T>>(b.field->f).extent();
  Field<T>& fa = field_of(a, wa, n, "a");
  Field<T>& fb = field_of(b, wb, n, "b");
  if (!(fa.extent() == fb.extent()))
    throw nb::value_error("strata.dot: a and b have different shapes");
  nb::gil_scoped_release unlocked;
  return dot(fa, fb);
}

double py_dot(nb::handle ha, nb::handle hb) {
  Operand a = operand(ha, "strata.dot", "a"), b = operand(hb, "strata.dot", "b");
  if (a.precision != b.precision)
    throw nb::type_error("strata.dot: a and b have different dtypes");
  if (a.field || b.field)
    return a.precision == Precision::f32 ? dot_as_fields<float>(a, b) : dot_as_fields<double>(a, b);
  const Array &x = *a.array, &y = *b.array;
  bool same = x.ndim() == y.ndim();
  for (std::size_t i = 0; same && i < x.ndim(); ++i) same = x.shape(i) == y.shape(i);
  if (!same) throw nb::value_error("strata.dot: a and b have different shapes");
  auto run = [&](auto* p, auto* q) {
    nb::gil_scoped_release unlocked;
    return dot(p, q, x.size(), Memory::host);
  };
  return a.precision == Precision::f32
             ? run(static_cast<const float*>(x.data()), static_cast<const float*>(y.data()))
             : run(static_cast<const double*>(x.data()), static_cast<const double*>(y.data()));
}

}  // namespace

NB_MODULE(_strata, m) {
  m.doc() = "strata: stencils and reductions on padded 3D grids (C++ core)";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<PyField>(m, "Field", nb::is_weak_referenceable(),
                      "A 3D grid of shape (nz, ny, nx) with `ghost` layers on every side, in "
                      "strata's padded layout (x fastest, rows 128-byte aligned). Zero-filled.")
      .def("__init__",
           [](PyField* self, nb::handle shape, nb::handle dtype, int ghost, const std::string& device) {
             const Extent n = parse_shape(shape);
             const Precision p = parse_dtype(dtype);
             const Memory mem = parse_device(device);
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
           })
      .def_prop_ro("ghost", [](PyField& f) { return f.visit([](auto& x) { return x.ghost(); }); })
      .def_prop_ro("device", [](PyField& f) {
             return f.visit([](auto& x) { return x.memory() == Memory::host ? "cpu" : "cuda"; });
           })
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
                   "NumPy view of the interior, shape (nz, ny, nx), sharing the Field's memory; "
                   "the Field stays alive while the view does")
      .def_prop_ro("padded",
                   [](nb::handle self) {
                     return nb::cast<PyField&>(self).visit(
                         [&](auto& x) { return view(x, self, true); });
                   },
                   "NumPy view of the whole allocation, shape (nz+2g, ny+2g, pitch): ghosts "
                   "and row padding included")
      .def_static("from_array",
                  [](nb::handle a, int ghost) {
                    Operand o = operand(a, "strata.Field.from_array", "a");
                    if (o.field)
                      throw nb::type_error("strata.Field.from_array: a is already a Field");
                    const Extent n = extent_3d(*o.array, "strata.Field.from_array", "a");
                    auto make = [&](auto tag) {
                      using T = decltype(tag);
                      Field<T> f(n, ghost);
                      {
                        nb::gil_scoped_release unlocked;
                        copy(wrap_dense<T>(*o.array, n), f);
                      }
                      return PyField{std::move(f)};
                    };
                    return o.precision == Precision::f32 ? make(float{}) : make(double{});
                  },
                  "a"_a, "ghost"_a = kDefaultGhost,
                  "A new Field holding a copy of a C-contiguous 3D float32/float64 array")
      .def("__repr__", [](PyField& f) {
        return f.visit([&](auto& x) {
          const Extent n = x.extent();
          return "strata.Field(shape=(" + std::to_string(n.nz) + ", " + std::to_string(n.ny) +
                 ", " + std::to_string(n.nx) + "), dtype=" + dtype_name(f.precision()) +
                 ", ghost=" + std::to_string(x.ghost()) +
                 ", device=" + (x.memory() == Memory::host ? "cpu" : "cuda") + ")";
        });
      });

  m.def("apply", &py_apply, "stencil"_a, "x"_a, "bc"_a = "dirichlet", "out"_a = nb::none(),
        "coeffs"_a = nb::none(),
        "One stencil pass. x: a Field (used in place; its ghosts are overwritten with the "
        "boundary values; returns a new Field or fills `out`, a different Field) or a "
        "C-contiguous 3D float32/float64 NumPy array (copied into a padded Field; returns a "
        "new array or fills `out`, which may be x). stencil: 7pt, star1..star4 (central-"
        "difference Laplacians), sym27 (finite-element Laplacian), box27 (needs coeffs). "
        "bc: 'dirichlet[:VALUE]', 'neumann', 'periodic' (np.pad's constant, symmetric, wrap).");
  m.def("sum",
        [](nb::handle x) {
          return reduce(x, "strata.sum", [](auto& f) { return sum(f); },
                        [](auto* p, std::size_t n) { return sum(p, n, Memory::host); });
        },
        "x"_a, "Sum of a Field's interior or of an array's values (accumulated in double)");
  m.def("norm2",
        [](nb::handle x) {
          return reduce(x, "strata.norm2", [](auto& f) { return norm2(f); },
                        [](auto* p, std::size_t n) { return norm2(p, n, Memory::host); });
        },
        "x"_a, "Euclidean norm of a Field's interior or of an array");
  m.def("max_abs",
        [](nb::handle x) {
          return reduce(x, "strata.max_abs", [](auto& f) { return max_abs(f); },
                        [](auto* p, std::size_t n) { return max_abs(p, n, Memory::host); });
        },
        "x"_a, "Largest absolute value of a Field's interior or of an array");
  m.def("dot", &py_dot, "a"_a, "b"_a,
        "sum(a * b) over two Fields or arrays of the same shape and dtype (a 3D array may be "
        "paired with a Field)");
}

}  // namespace strata::python
