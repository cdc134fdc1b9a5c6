// strata._strata: the nanobind extension behind `import strata`. Each binding file
// registers its part (bindings.hpp); strata::Error becomes ValueError here, once.
#include "bindings.hpp"
#include "strata/error.hpp"

namespace nb = nanobind;

NB_MODULE(_strata, m) {
  m.doc() = "strata: stencils, reductions and solvers on padded 3D grids (C++ core)";
  // A Field that another extension's object still holds when the interpreter exits (an array
  // from np.from_dlpack(f) or torch.from_dlpack(f) at a script's top level) is released after
  // this module is torn down, and nanobind would print "leaked ... reference counting issue"
  // at every such exit. Lifetimes during a run are tested instead (python/tests/test_interop.py:
  // a Field goes with its last view, capsule or array; a script with such views exits silently).
  nb::set_leak_warnings(false);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const strata::Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  strata::python::bind_field(m);
  strata::python::bind_apply(m);
  strata::python::bind_poisson(m);
  strata::python::bind_wave(m);
  strata::python::bind_bench(m);
  strata::python::bind_runs(m);
  strata::python::bind_imaging(m);
}
