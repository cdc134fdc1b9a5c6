// One registration function per binding file of strata._strata; module.cpp calls them.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

namespace strata::wave {
struct Config;
struct Progress;
}  // namespace strata::wave

namespace strata::python {

void bind_field(nanobind::module_& m);    // field.cpp: strata.Field
void bind_apply(nanobind::module_& m);    // apply.cpp: apply, sum, norm2, max_abs, dot
void bind_poisson(nanobind::module_& m);  // poisson.cpp: _poisson_solve
void bind_wave(nanobind::module_& m);     // wave.cpp: _wave_simulate, the receiver axis, the model
void bind_runs(nanobind::module_& m);     // runs.cpp: _run_apply, _run_poisson, _run_wave, _job
void bind_bench(nanobind::module_& m);    // bench.cpp: _bench_run (strata bench's families)
void bind_imaging(nanobind::module_& m);  // imaging.cpp: _imaging_gradient, _migrate, _born

// wave.cpp: a wave configuration from a file (is_path) or a JSON text, with "key=VALUE"
// overrides; a Progress as the dict Python's callbacks get.
wave::Config wave_config(const std::string& text, bool is_path,
                         const std::vector<std::string>& overrides);
nanobind::dict wave_progress(const wave::Progress& p);

// Python callbacks and Ctrl-C during a long call that released the GIL. call() takes the
// GIL, runs any pending signal handler (SIGINT raises KeyboardInterrupt there) and then fn;
// the first Python exception from either is kept and call() returns true, from then on
// without running anything: the caller stops its work and, once the C++ side has unwound,
// rethrow() raises the kept exception in Python.
class PyCallbacks {
 public:
  template <class Fn>
  bool call(Fn&& fn) {
    if (error_) return true;
    nanobind::gil_scoped_acquire locked;
    try {
      if (PyErr_CheckSignals() != 0) throw nanobind::python_error();
      fn();
    } catch (nanobind::python_error& e) {
      error_.emplace(std::move(e));
    }
    return bool(error_);
  }
  bool stopped() const { return bool(error_); }
  void rethrow() {  // with the GIL held; nothing when no exception was kept
    if (error_) throw nanobind::python_error(std::move(*error_));
  }

 private:
  std::optional<nanobind::python_error> error_;
};

}  // namespace strata::python
