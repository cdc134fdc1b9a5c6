// strata.apply and the reductions. A Field is used in place; an array (host or CUDA, any
// framework) is copied into a padded Field of its own memory, and the result handed back
// as a view in the caller's framework (no second copy). The GIL is released around every
// pass over memory.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "bindings.hpp"
#include "common.hpp"
#include "drivers/apply.hpp"
#include "strata/apply.hpp"
#include "strata/reduce.hpp"
#include "strata/steps.hpp"

namespace strata::python {
namespace {

using namespace nb::literals;

// Python's names: 7pt, star1..star4, sym27, box27; the names, defaults and checks are the
// library's (Stencil::named, as the CLI's), a bare "star" refused for want of its radius.
Stencil make_stencil(const std::string& name, const std::optional<std::vector<double>>& c,
                     double h) {
  if (name == "star")
    throw nb::value_error("strata.apply: stencil 'star' needs its radius: star1, star2, star3, star4");
  std::optional<std::span<const double>> k;
  if (c) k = std::span<const double>(*c);
  return Stencil::named(name, 0, k, h);
}

// What a call does with a result that holds NaN or Inf, the CLI's rule (an error; with
// --allow-nonfinite a warning): "raise" FloatingPointError (the default), "warn" a
// RuntimeWarning and the result returned, "ignore" no check (one read of the result less).
enum class Nonfinite { raise, warn, ignore };

Nonfinite parse_nonfinite(const std::string& s, const char* fn) {
  if (s == "raise") return Nonfinite::raise;
  if (s == "warn") return Nonfinite::warn;
  if (s == "ignore") return Nonfinite::ignore;
  throw nb::value_error(
      (std::string(fn) + ": nonfinite '" + s + "': allowed 'raise', 'warn', 'ignore'").c_str());
}

// After the pass, without the GIL: "" when the result is finite (or not checked), else why,
// with what the input held when it is still there to look at.
template <class T>
std::string nonfinite_in(const Field<T>& result, const Field<T>* input, Nonfinite mode) {
  if (mode == Nonfinite::ignore) return {};
  const FiniteReport<T> r = check_finite(result);
  if (r.all_finite) return {};
  const std::size_t n = result.extent().points();
  if (!input) return nonfinite_result<T>(r, nullptr, n);
  const FiniteReport<T> in = check_finite(*input);
  return nonfinite_result(r, &in, n);
}

// With the GIL: raises or warns about `why` (nothing when empty). `written`: the argument
// that holds the result all the same ("out", "x"), or null.
void report_nonfinite(const std::string& why, Nonfinite mode, const char* fn, const char* written) {
  if (why.empty()) return;
  std::string m = std::string(fn) + ": " + why;
  if (mode == Nonfinite::raise) {
    m += std::string(". ") + (written ? std::string(written) + " holds it; " : "") +
         "nonfinite='warn' returns it with a warning";
    PyErr_SetString(PyExc_FloatingPointError, m.c_str());
    throw nb::python_error();
  }
  if (PyErr_WarnEx(PyExc_RuntimeWarning, m.c_str(), 1) != 0) throw nb::python_error();
}

template <class T>
nb::object apply_field(const Stencil& s, const Boundary& bc, PyField& x, nb::handle x_obj,
                       nb::handle out_obj, Nonfinite mode) {
  Field<T>& in = x.as<T>();
  std::string bad;
  if (out_obj.is_none()) {
    Field<T> out(in.extent(), in.ghost(), in.memory());
    {
      nb::gil_scoped_release unlocked;
      apply(s, in, out, bc);
      bad = nonfinite_in(out, &in, mode);
    }
    report_nonfinite(bad, mode, "strata.apply", nullptr);
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
  if (o->memory() != x.memory())
    throw nb::value_error("strata.apply: out and x are on different devices");
  Field<T>& out = o->as<T>();
  {
    nb::gil_scoped_release unlocked;
    apply(s, in, out, bc);
    bad = nonfinite_in(out, &in, mode);
  }
  report_nonfinite(bad, mode, "strata.apply", "out");
  return nb::borrow(out_obj);
}

// The padded copy of an array operand: the last one of each dtype and memory is kept for the
// next call of the same shape (a cudaMalloc and zeroing of a 512^3 field took several times
// the pass itself). strata.release_scratch() frees them. Taken out under the lock, so two
// threads never share one.
template <class T>
struct Scratch {
  static std::unique_ptr<Field<T>> take(Extent n, int ghost, Memory m) {
    std::unique_ptr<Field<T>> f;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      f = std::move(slot(m));
    }
    if (f && f->extent() == n && f->ghost() == ghost) return f;
    f.reset();  // a different shape: freed before the new one is allocated
    return std::make_unique<Field<T>>(n, ghost, m);
  }
  static void give_back(std::unique_ptr<Field<T>> f) {
    const std::lock_guard<std::mutex> lock(mutex);
    slot(f->memory()) = std::move(f);
  }
  static void release() {
    std::unique_ptr<Field<T>> host, device;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      host = std::move(slot(Memory::host));
      device = std::move(slot(Memory::device));
    }
  }
  static std::unique_ptr<Field<T>>& slot(Memory m) {
    static std::unique_ptr<Field<T>> slots[2];
    return slots[m == Memory::host ? 0 : 1];
  }
  static inline std::mutex mutex;
};

// A new C-contiguous array of x's own framework, shape and dtype (numpy/cupy/torch
// .empty_like, their own allocators); None for another kind of array.
nb::object empty_like(nb::handle x) {
  const std::string module = nb::cast<std::string>(nb::getattr(x.type(), "__module__", nb::str("")));
  const std::string root = module.substr(0, module.find('.'));
  if (root == "numpy") return nb::module_::import_("numpy").attr("empty_like")(x, "subok"_a = false);
  if (root == "cupy" || root == "torch") return nb::module_::import_(root.c_str()).attr("empty_like")(x);
  return nb::none();
}

template <class T>
nb::object apply_array(const Stencil& s, const Boundary& bc, const Operand& x, nb::handle x_obj,
                       nb::handle out_obj, Nonfinite mode) {
  const char* fn = "strata.apply";
  const Extent n = extent_3d(*x.array, fn, "x");
  nb::object result;  // the array returned: out, or a new one of x's kind (none: unknown kind)
  if (!out_obj.is_none()) {
    nb::ndarray<> writable;
    if (nb::isinstance<PyField>(out_obj) || !nb::try_cast<nb::ndarray<>>(out_obj, writable, false))
      throw nb::type_error(("strata.apply: out must be a writable NumPy, CuPy or PyTorch array "
                            "when x is one, got " + kind_of(out_obj)).c_str());
    result = nb::borrow(out_obj);
  } else {
    result = empty_like(x_obj);
  }
  std::optional<Operand> out;
  if (!result.is_none()) {
    out = operand(result, fn, "out");
    if (out->precision != precision_of<T>)
      throw nb::type_error("strata.apply: out's dtype differs from x's");
    if (out->memory != x.memory)
      throw nb::value_error("strata.apply: out and x are on different devices");
    if (!(extent_3d(*out->array, fn, "out") == n))
      throw nb::value_error("strata.apply: out's shape differs from x's");
  }
  const int ghost = std::max(s.radius(), 1);
  std::unique_ptr<Field<T>> res;  // only for an array of a kind strata cannot allocate
  std::string bad;
  {
    nb::gil_scoped_release unlocked;
    std::unique_ptr<Field<T>> in = Scratch<T>::take(n, ghost, x.memory);
    copy(wrap_dense<T>(*x.array, n, x.memory), *in);  // before out is written: out may be x
    if (out) {
      Field<T> dst = wrap_dense<T>(*out->array, n, x.memory);
      apply(s, *in, dst, bc);
      bad = nonfinite_in(dst, in.get(), mode);
    } else {
      res = std::make_unique<Field<T>>(n, ghost, x.memory);
      apply(s, *in, *res, bc);
      bad = nonfinite_in(*res, in.get(), mode);
    }
    Scratch<T>::give_back(std::move(in));
  }
  report_nonfinite(bad, mode, "strata.apply", out_obj.is_none() ? nullptr : "out");
  if (out) return result;
  // The result Field itself, seen through a DLPack view; the capsule owns it.
  nb::capsule owner(res.get(), [](void* p) noexcept { delete static_cast<Field<T>*>(p); });
  Field<T>& r = *res.release();
  return view(r, owner, false, x_obj);
}

nb::object py_apply(const std::string& stencil, nb::handle x, const std::string& bc,
                    nb::handle out, const std::optional<std::vector<double>>& coeffs, double h,
                    const std::string& nonfinite) {
  const Stencil s = make_stencil(stencil, coeffs, h);
  const Boundary b = Boundary::parse(bc);
  const Nonfinite mode = parse_nonfinite(nonfinite, "strata.apply");
  Operand o = operand(x, "strata.apply", "x");
  if (o.field)
    return o.precision == Precision::f32 ? apply_field<float>(s, b, *o.field, x, out, mode)
                                         : apply_field<double>(s, b, *o.field, x, out, mode);
  return o.precision == Precision::f32 ? apply_array<float>(s, b, o, x, out, mode)
                                       : apply_array<double>(s, b, o, x, out, mode);
}

// ---- repeated steps -----------------------------------------------------------------

StepOptions step_options(const std::string& update, double c, int fuse) {
  if (fuse < 0) throw nb::value_error("strata.steps: fuse must be >= 0 (0: strata's choice)");
  StepOptions o = drivers::step_update(update, c, "strata.steps: update");  // the CLI's rule
  o.fuse = fuse;
  return o;
}

template <class T>
nb::object steps_array(const Stencil& s, const Boundary& bc, int steps, StepOptions o, const Operand& x,
                       nb::handle x_obj, Nonfinite mode) {
  const Extent n = extent_3d(*x.array, "strata.steps", "x");
  nb::object result = empty_like(x_obj);
  if (o.fuse == 0) o.fuse = auto_fuse<T>(s, x.memory);  // and ghosts for it when periodic
  const int ghost = std::max({s.radius(), 1, bc.kind == BoundaryKind::periodic ? o.fuse * s.radius() : 0});
  std::unique_ptr<Field<T>> u;
  std::string bad;
  {
    nb::gil_scoped_release unlocked;
    u = std::make_unique<Field<T>>(n, ghost, x.memory);
    const Field<T> input = wrap_dense<T>(*x.array, n, x.memory);
    copy(input, *u);
    apply_steps(s, *u, bc, steps, o);
    bad = nonfinite_in(*u, &input, mode);
  }
  report_nonfinite(bad, mode, "strata.steps", nullptr);
  if (!result.is_none()) {
    const Operand out = operand(result, "strata.steps", "out");
    nb::gil_scoped_release unlocked;
    Field<T> dst = wrap_dense<T>(*out.array, n, x.memory);
    copy(*u, dst);
    return result;
  }
  nb::capsule owner(u.get(), [](void* p) noexcept { delete static_cast<Field<T>*>(p); });
  Field<T>& r = *u.release();
  return view(r, owner, false, x_obj);
}

nb::object py_steps(const std::string& stencil, nb::handle x, int steps, const std::string& bc,
                    const std::string& update, double c, int fuse,
                    const std::optional<std::vector<double>>& coeffs, double h,
                    const std::string& nonfinite) {
  const Stencil s = make_stencil(stencil, coeffs, h);
  const Boundary b = Boundary::parse(bc);
  const StepOptions o = step_options(update, c, fuse);
  const Nonfinite mode = parse_nonfinite(nonfinite, "strata.steps");
  if (steps < 0) throw nb::value_error("strata.steps: steps must be >= 0");
  Operand op = operand(x, "strata.steps", "x");
  if (op.field) {
    const std::string bad = op.field->visit([&](auto& f) {
      nb::gil_scoped_release unlocked;
      apply_steps(s, f, b, steps, o);
      // The input is gone (updated in place): the message says what the result holds.
      return nonfinite_in(f, static_cast<decltype(&f)>(nullptr), mode);
    });
    report_nonfinite(bad, mode, "strata.steps", "x");
    return nb::borrow(x);
  }
  return op.precision == Precision::f32 ? steps_array<float>(s, b, steps, o, op, x, mode)
                                        : steps_array<double>(s, b, steps, o, op, x, mode);
}

// ---- reductions ---------------------------------------------------------------------

// f(Field) for a Field, f(pointer, count, memory) for a flat array.
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
    return double(on_flat(p, a.size(), o.memory));
  };
  return o.precision == Precision::f32 ? run(static_cast<const float*>(a.data()))
                                       : run(static_cast<const double*>(a.data()));
}

template <class T>
double dot_as_fields(Operand& a, Operand& b) {
  // A Field with an array: the array (3D, the Field's shape) is wrapped with ghost 0.
  std::optional<Field<T>> wa, wb;
  auto field_of = [](Operand& o, std::optional<Field<T>>& w, Extent n, const char* arg) -> Field<T>& {
    if (o.field) return o.field->as<T>();
    const Extent e = extent_3d(*o.array, "strata.dot", arg);
    if (!(e == n))
      throw nb::value_error("strata.dot: a and b have different shapes");
    w.emplace(wrap_dense<T>(*o.array, e, o.memory));
    return *w;
  };
  const Extent n = a.field ? a.field->as<T>().extent() : b.field->as<T>().extent();
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
  if (a.memory != b.memory)
    throw nb::value_error("strata.dot: a and b are on different devices");
  if (a.field || b.field)
    return a.precision == Precision::f32 ? dot_as_fields<float>(a, b) : dot_as_fields<double>(a, b);
  const Array &x = *a.array, &y = *b.array;
  bool same = x.ndim() == y.ndim();
  for (std::size_t i = 0; same && i < x.ndim(); ++i) same = x.shape(i) == y.shape(i);
  if (!same) throw nb::value_error("strata.dot: a and b have different shapes");
  auto run = [&](auto* p, auto* q) {
    nb::gil_scoped_release unlocked;
    return dot(p, q, x.size(), a.memory);
  };
  return a.precision == Precision::f32
             ? run(static_cast<const float*>(x.data()), static_cast<const float*>(y.data()))
             : run(static_cast<const double*>(x.data()), static_cast<const double*>(y.data()));
}

}  // namespace

void bind_apply(nb::module_& m) {
  m.def("apply", &py_apply, "stencil"_a, "x"_a, "bc"_a = "dirichlet", "out"_a = nb::none(),
        "coeffs"_a = nb::none(), "h"_a = 1.0, "nonfinite"_a = "raise",
        "One stencil pass. x: a Field (used in place, no copy; its ghosts are overwritten with "
        "the boundary values; returns a new Field or fills `out`, a different Field) or a "
        "C-contiguous 3D float32/float64 NumPy, CuPy or PyTorch array (copied into a padded "
        "Field on its device, kept for the next call of that shape until "
        "strata.release_scratch(); returns a new C-contiguous array of the same kind, or fills "
        "`out`, which may be x). stencil: 7pt, star1..star4, sym27, box27 (needs coeffs). "
        "Without coeffs, 7pt/starR compute +Lap(u) = u_xx + u_yy + u_zz by central differences "
        "of order 2R and sym27 by trilinear finite elements (+2 on x**2; strata.poisson solves "
        "-Lap(u) = f), at grid spacing h: the h = 1 coefficients times 1/h**2 (h is refused with "
        "coeffs). bc: 'dirichlet[:VALUE]', 'neumann', 'periodic' (np.pad's constant, symmetric, "
        "wrap). nonfinite: a result holding NaN or Inf raises FloatingPointError saying how many "
        "and where ('raise', as the CLI), or warns (RuntimeWarning) and returns it ('warn', as "
        "--allow-nonfinite), or is not checked ('ignore': one read of the result less); `out` "
        "holds the result even when the call raises.");
  m.def("steps", &py_steps, "stencil"_a, "x"_a, "steps"_a, "bc"_a = "dirichlet", "update"_a = "relax",
        "c"_a = 0.0, "fuse"_a = 0, "coeffs"_a = nb::none(), "h"_a = 1.0, "nonfinite"_a = "raise",
        "The stencil `steps` times, the ghosts refilled from bc before each step: update 'relax' "
        "is u <- u + c (A u) (the explicit heat step with c = kappa dt for the default +Laplacian "
        "A, c > 0, or weighted Jacobi), 'repeat' is u <- A u. x: a Field (updated in place and "
        "returned) or a C-contiguous 3D float32/float64 NumPy, CuPy or PyTorch array (copied; a "
        "new array of the same kind is returned). fuse: steps per trip through memory on the GPU "
        "(temporal blocking: 2..4 for stars of radius 1..4, 2 for sym27; 1: a pass per step; 0, "
        "the default: strata's measured choice (7pt: 3; radius-2 star: 2 in float32; else 1), "
        "see docs/performance.md); the same result bits whatever the value. "
        "stencil, bc, coeffs, h and nonfinite as in strata.apply (a Field holds the result even "
        "when the call raises).");
  m.def("release_scratch",
        [] {
          Scratch<float>::release();
          Scratch<double>::release();
        },
        "Frees the padded copies strata.apply keeps of array operands (one per dtype and "
        "device, the last shape used) for the next call.");
  m.def("sum",
        [](nb::handle x) {
          return reduce(x, "strata.sum", [](auto& f) { return sum(f); },
                        [](auto* p, std::size_t n, Memory mem) { return sum(p, n, mem); });
        },
        "x"_a, "Sum of a Field's interior or of an array's values (accumulated in double)");
  m.def("norm2",
        [](nb::handle x) {
          return reduce(x, "strata.norm2", [](auto& f) { return norm2(f); },
                        [](auto* p, std::size_t n, Memory mem) { return norm2(p, n, mem); });
        },
        "x"_a, "Euclidean norm of a Field's interior or of an array");
  m.def("max_abs",
        [](nb::handle x) {
          return reduce(x, "strata.max_abs", [](auto& f) { return max_abs(f); },
                        [](auto* p, std::size_t n, Memory mem) { return max_abs(p, n, mem); });
        },
        "x"_a, "Largest absolute value of a Field's interior or of an array");
  m.def("dot", &py_dot, "a"_a, "b"_a,
        "sum(a * b) over two Fields or arrays of the same shape, dtype and device (a 3D "
        "array may be paired with a Field)");
}

}  // namespace strata::python
