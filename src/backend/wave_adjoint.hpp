// The exact discrete adjoint of the wave scheme of backend/wave.hpp: the transpose of one
// step's linear map on the state (u, u_prev and each absorbing layer's psi and zeta), so
// that <M x, y> = <x, M^T y> to rounding, CPML, free, rigid and periodic faces included.
// It is what reverse-time migration and the full-waveform-inversion gradient run backward
// in time (issue 40). The CPU's (src/cpu/wave_adjoint.cpp) is written in scatter form, each
// statement the transpose of one statement of src/cpu/wave.cpp's step, in double: the oracle.
// The GPU's (src/cuda/wave/adjoint.cu) runs the forward's fused update on q = c2 * lambda.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/tag.hpp"
#include "backend/wave.hpp"

namespace strata::wave {

// The adjoint state, named and ordered as Backend::save names the forward one ("u" is the
// adjoint of u, "u_prev" of u_prev, "psi_<face>" and "zeta_<face>" of the layers'), dense.
template <class T>
class AdjointBackend {
 public:
  virtual ~AdjointBackend() = default;
  // The forward run's (v dt / h)^2, formed exactly as Backend::set_velocity forms it.
  virtual void set_velocity(std::span<const T> v, double dt_over_h) = 0;
  virtual void set_velocity_planes(std::span<const T> planes, double dt_over_h) = 0;
  virtual std::vector<NamedArray<double>> save() const = 0;
  // Every array of the state (a name not given is set to 0).
  virtual void load(const std::vector<NamedArray<double>>& arrays) = 0;
  // state <- M^T state, M the map of Backend::step without its sources: the adjoint of u
  // after a step becomes the adjoint of u before it.
  virtual void step_back() = 0;
  // The transpose of Backend::record: adds w * values[r] at receiver r's taps into the
  // adjoint of u (the data residual, or the data, injected as the adjoint's source).
  virtual void inject_at_receivers(std::span<const double> values) = 0;
  // The transpose of Backend::step's source injection into the new u: out[j] = sum of w *
  // (the adjoint of u) over source j's taps.
  virtual void sample_at_sources(std::span<double> out) const = 0;
  // The adjoint of u (dense [z][y][x]) in the current state: before step_back() that of the
  // step's new u (what the gradient of (v dt / h)^2 correlates with the step's Lap u + CPML
  // terms), after it that of the step's input u.
  virtual std::span<const double> adjoint_u() const = 0;

  // The imaging condition, computed where the state lives (on a GPU no field leaves it). The
  // fields are the forward backend's u or u_prev (wavefield(), previous_wavefield()), in this
  // backend's memory. begin_imaging zeroes the sums and takes the forward run's source
  // amplitudes (steps x sources, row-major, as Backend::set_wavelets), and with
  // `illumination` false makes no illumination sum (illuminate must not be called; the
  // illumination is then empty); then
  //   illuminate(u):           illumination += u^2 at every point
  //   keep(u):                 u becomes `next`, the state after the one correlate sees
  //   correlate(now, prev, n): correlation += lambda * (next - 2 now + prev - the sources'
  //                            injection of step n), lambda the adjoint of u in the current
  //                            state (call it before step_back); then now becomes `next`.
  // The second difference and each product formed in double and rounded as the CPU's, in
  // that order (the sources' amplitudes subtracted source by source); the sums in double (the
  // GPU's in f32, correlation and illumination: each block of 32 steps, or of 32 illuminate
  // calls, summed in f32, that block's sum then added into a double total,
  // cuda/kernels/wave_imaging.cuh; every path, fused or not, the same bits).
  virtual void begin_imaging(std::span<const double> wavelets, bool illumination) = 0;
  virtual void illuminate(const Field<T>& u) = 0;
  virtual void keep(const Field<T>& u) = 0;
  virtual void correlate(const Field<T>& now, const Field<T>& prev, int n) = 0;
  // correlate(now, prev, n), then step_back(): the same bits, in one pass over the grid where
  // the backend can (the GPU's, the correlation inside the step's update of the adjoint field).
  // Returns whether it did (false: the two calls ran).
  virtual bool correlate_stepping_back(const Field<T>& now, const Field<T>& prev, int n) {
    correlate(now, prev, n);
    step_back();
    return false;
  }
  // Boundary saving's correlation fused into the forward field's reversed step, where the
  // forward backend has a correlating step (Backend::correlating_box; the GPU's).
  // fuse_correlation(fwd, lo, hi), once after begin_imaging, [lo, hi) the box whose sums the
  // caller keeps (the others it zeroes): false where it cannot (then correlate as before;
  // keep() is not needed after a true). Then for each step m, lambda the adjoint after row
  // m's injection and fwd holding u = u_m, u_prev = u_{m+1}:
  //   step_correlated(m, layers):
  //                        fwd's step m (u becomes u_{m-1}, u_prev u_m; `layers` false:
  //                        Backend::step_without_layers's) with correlation += lambda *
  //                        second on the points of its interior update;
  //   correlate_rest(m):   the same at the box's other points and the sources' (their
  //                        injection subtracted), once u_{m-1} is whole (its ring put back);
  //   step_back():         as ever; the two calls above only read lambda, and the step back
  //                        writes nothing they read, so a backend may run it beside them (the
  //                        GPU's: on a stream of its own from step_correlated's start),
  //                        ordered before whatever comes next.
  // The sums are the bits correlate(u_m, u_{m-1}, m) gives. Between correlate_rest(m + 1) and
  // step_correlated(m) nothing but the adjoint's own calls may change fwd's fields (a backend
  // may carry what the step needs of u_{m+1} from the one to the other).
  virtual bool fuse_correlation(Backend<T>&, std::array<int, 3>, std::array<int, 3>) {
    return false;
  }
  virtual void step_correlated(int, bool /*layers*/) {
    throw Error("internal: no fused correlation here");
  }
  virtual void correlate_rest(int) { throw Error("internal: no fused correlation here"); }
  // Where a fused backward step's time goes on the device (a diagnostic,
  // STRATA_IMAGING_TIMELINE=1): medians over a few steps, in ms from each step's start (its
  // first launch), of "reversed_done" (the reversed step and its ring put back), "rest_done"
  // (the correlation's rest), "bulk_done" and "back_done" (the step back's bulk update and its
  // layer passes, beside them), "step_done"; empty when not asked or on the CPU. Waits for
  // the device.
  virtual std::vector<std::pair<std::string, double>> step_timeline() { return {}; }
  // The sums, dense [z][y][x], into out (n.points() values: the caller's array, made
  // while the sweeps ran).
  virtual void correlation(std::span<double> out) const = 0;
  // The illumination sum, dense [z][y][x], into out (n.points() values; begun with it).
  virtual void illumination(std::span<double> out) const = 0;
};

}  // namespace strata::wave

// Each backend's factory, reached through on_backend (dispatch/backend.hpp) from the device.
namespace strata::cpu {
template <class T>
std::unique_ptr<wave::AdjointBackend<T>> make_wave_adjoint(Tag, const wave::Setup& s);
}  // namespace strata::cpu

namespace strata::cuda {
template <class T>
std::unique_ptr<wave::AdjointBackend<T>> make_wave_adjoint(Tag, const wave::Setup& s);
}  // namespace strata::cuda
