// The wave solver's backend interface: what the driver (src/solvers/wave/solver.cpp, written
// once) needs from a device to advance the leapfrog scheme. Everything here is resolved
// numbers (coefficients in grid units, interpolation taps, CPML constants), so a backend is
// loops or kernels only. Implemented by src/cpu/wave.cpp and src/cuda/wave/wave.cu, whose
// factories take their backend's tag (backend/tag.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backend/tag.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// One interpolation / injection weight on an interior grid point.
struct Tap {
  int x = 0, y = 0, z = 0;
  double w = 0;
};

// A CPML layer on one face: the box of interior points it covers (lo inclusive, hi
// exclusive per axis), the axis it absorbs along and its constants per layer point
// (index = coordinate along the axis - lo[axis]).
struct PmlFace {
  int face = 0, axis = 0;
  std::array<int, 3> lo{}, hi{};
  std::vector<double> a, b;
  std::size_t points() const {
    return std::size_t(hi[0] - lo[0]) * std::size_t(hi[1] - lo[1]) * std::size_t(hi[2] - lo[2]);
  }
};

// The scheme, in grid units. With c2 = (v dt / h)^2 per point, one step is
//   u+ = 2u - u- + c2 (Lap u + sum_axes (D1 psi_a + zeta_a)) + sum_sources taps * s(t_n)
//   psi_a  = b psi_a + a D1_a u                       (before the update, at every step)
//   zeta_a = b zeta_a + a (D2_a u + D1_a psi_a)
// where Lap is the star `lap` (sum of the three 1D second derivatives d2), D1 the first
// derivative d1, psi/zeta are zero outside their layer (and beyond the grid), and u's
// ghost layers hold: 0 beyond a pml face, the odd (free) / even (rigid) mirror image about
// the face, or the periodic wrap.
struct Setup {
  Extent n;
  int radius = 1;
  std::vector<double> lap;  // 3D star, radius + 1 coefficients (c0 = 3 d2[0])
  std::vector<double> d2;   // 1D second derivative, radius + 1
  std::vector<double> d1;   // 1D first derivative, radius + 1 (d1[0] = 0)
  std::array<FaceKind, 6> faces{};
  std::array<bool, 6> exchanged{};  // faces whose ghosts the neighbours send (marked pml above)
  std::vector<PmlFace> pml;
  std::vector<std::vector<Tap>> sources;    // weights include dt^2 / h^3; no repeated point
  std::vector<std::vector<Tap>> receivers;  // trilinear weights
  int trace_rows = 0;                       // capacity of the trace buffer
};

// The interior box: the grid less the absorbing layers, [lo, hi) per axis (hi <= lo on an
// axis where the layers leave none). Boundary saving keeps u on its ring (the points outside
// it within `radius` of it) and runs the field backward in it (Backend::step_without_layers).
std::array<std::array<int, 3>, 2> interior_box(const Setup& s);

template <class T>
struct NamedArray {
  std::string name;
  std::vector<T> data;
};

// The checkpointed state arrays of every backend: "u", "u_prev", then "psi_<face>" and
// "zeta_<face>" per absorbing layer. One place decides names and sizes, so a checkpoint
// written by one backend restores into the other.
struct StateSlot {
  enum Kind { u, u_prev, psi, zeta } kind = u;
  std::size_t layer = 0;  // psi / zeta: index into Setup::pml
};
std::vector<StateSlot> state_slots(const Setup& s);  // in save() order
std::string state_name(const StateSlot& slot, const Setup& s);
std::size_t state_size(const StateSlot& slot, const Setup& s);  // values in that array
// Throws Error for a name the setup does not have, or `values` not that array's size.
StateSlot state_slot(const std::string& name, std::size_t values, const Setup& s);

template <class T>
class Backend {
public:
  virtual ~Backend() = default;
  // Velocity model (dense [z][y][x]) and dt / h: the backend forms c2 = (v dt / h)^2.
  virtual void set_velocity(std::span<const T> v, double dt_over_h) = 0;
  // The same for a model with one velocity per z plane (constant, layered): nz values.
  virtual void set_velocity_planes(std::span<const T> planes, double dt_over_h) = 0;
  // Source amplitudes s_j(t_n) for steps first .. first + count - 1, row-major
  // (step, source). step() only asks for steps inside the last block given.
  virtual void set_wavelets(int first, int count, std::span<const double> amplitudes) = 0;
  // u(n) -> u(n+1), injecting the sources' amplitudes of step n.
  virtual void step(int n) = 0;
  // Boundary saving's reversed step (a field run backward, its ring put back after each step:
  // imaging/gradient.cpp): step(n) where only the interior box (interior_box) must come out
  // right, with step(n)'s bits there. The interior's update reads the interior and its ring,
  // never psi, zeta or the layers' points beyond the ring, so a backend may leave the layers
  // as they are: their points keep what u_prev held (but where a source injects), psi and
  // zeta theirs. The CPU's does, and the GPU's in one process with an interior; otherwise
  // step(n) runs. The mirror ghosts and the sources' injection run as in step(n).
  virtual void step_without_layers(int n) { step(n); }
  // Samples the receivers from the current u into trace row `row`.
  virtual void record(int row) = 0;
  // The first `rows` rows of the traces (row-major, row x receiver), and their restore.
  virtual std::vector<T> traces(int rows) const = 0;
  virtual void set_traces(std::span<const T> rows_data, int rows) = 0;
  // Every state array (u, u_prev, the CPML memory), dense, in a fixed order, and restore.
  virtual std::vector<NamedArray<T>> save() const = 0;
  // Values first .. first+count-1 of one state array (the order of save()'s arrays: u and
  // u_prev dense [z][y][x]) into dst, from where it lives; for u and u_prev first and count
  // are whole planes (nx ny values) but for the end.
  virtual void read_state(const StateSlot& slot, std::size_t first, std::size_t count, T* dst) const = 0;
  virtual void load(const std::vector<NamedArray<T>>& arrays) = 0;
  // u(n) with its ghost layers, where it lives, for a distributed run's halo exchange
  // (between steps; the backend's stream is the default one).
  virtual Field<T>& wavefield() = 0;
  // u(n-1), the same way: what the imaging condition reads beside u where both live.
  virtual Field<T>& previous_wavefield() = 0;
  // A distributed run's exchange of u's ghost layers (Setup::exchanged faces), called with
  // a stream: the backend calls it once per step, ordered so that every read of those
  // ghosts (the update next to them, the receivers) sees u's current values. The CPU calls
  // it after each step; the GPU at the start of the next, on a stream of its own, while the
  // update computes the points that do not read those ghosts (receivers are sampled after
  // it, and traces() makes a last exchange for a row still waiting). Every rank calls it
  // the same number of times (it is collective).
  // `packed`, where not null, is an event the exchange records on `stream` once its faces are
  // packed, before its messages (the GPU's step holds its interior back until then).
  virtual void set_halo_exchange(std::function<void(void* stream, void* packed)> exchange) = 0;
  virtual void synchronize() = 0;
  // Whether every value of u is finite, checked where u lives (no copy of the grid).
  virtual bool wavefield_finite() = 0;
  // Where a step's time goes on the device (a diagnostic, STRATA_WAVE_TIMELINE=1): medians
  // over a few steps, in ms from each step's start, of the milestones the backend marks
  // ("halo_done", "far_interior_done", "shell_joined", "step_done"); empty when not asked
  // or on the CPU. Waits for the device.
  virtual std::vector<std::pair<std::string, double>> step_timeline() { return {}; }

  // Kept copies of the whole state (the imaging runs' checkpoints) in slots 0 .. count-1,
  // where kept_state_memory() says: here on the host through save() and load(); a GPU
  // backend keeps them in its device memory, so that no copy crosses to the host.
  // reserve_states throws before the run when they do not fit there. restore_state with
  // `release` may free the slot (its last use).
  virtual Memory kept_state_memory() const { return Memory::host; }
  // Bytes one kept state takes where it is kept (`s`: this backend's setup).
  virtual double kept_state_bytes(const Setup& s) const {
    double values = 0;
    for (const StateSlot& slot : state_slots(s)) values += double(state_size(slot, s));
    return values * double(sizeof(T));
  }
  virtual void reserve_states(int count) { kept_.assign(std::size_t(count), {}); }
  virtual void store_state(int slot) { kept_.at(std::size_t(slot)) = save(); }
  virtual void restore_state(int slot, bool release) {
    load(kept_.at(std::size_t(slot)));
    if (release) kept_[std::size_t(slot)].clear();
  }

  // Boundary saving's rings, kept where kept_state_memory() says: `rows` copies of u at
  // `points` (dense [z][y][x] indices), all zero to begin with. keep_ring(row) copies u's
  // values at the points into row `row`; put_ring(row) writes row `row` back into u (a row
  // < 0: zeros). swap_time() trades u and u_prev (a field run backward holds them the other
  // way round).
  virtual void reserve_rings(std::span<const std::size_t> points, int rows) {
    ring_points_.assign(points.begin(), points.end());
    rings_.assign(std::size_t(rows) * ring_points_.size(), T(0));
  }
  virtual void keep_ring(int row) {
    Field<T>& u = wavefield();
    T* dst = rings_.data() + std::size_t(row) * ring_points_.size();
    for (std::size_t k = 0; k < ring_points_.size(); ++k) dst[k] = at(u, ring_points_[k]);
  }
  virtual void put_ring(int row) {
    Field<T>& u = wavefield();
    const T* src = row < 0 ? nullptr : rings_.data() + std::size_t(row) * ring_points_.size();
    for (std::size_t k = 0; k < ring_points_.size(); ++k) at(u, ring_points_[k]) = src ? src[k] : T(0);
  }
  // The imaging condition fused into a step of a field run backward (boundary saving; the
  // GPU's, reached through AdjointBackend::fuse_correlation): correlating_box() is the box
  // [x0, y0, z0, x1, y1, z1) of the points whose update step_correlating's kernel writes
  // (all zero: the backend has no such step), and step_correlating(n, q, corr) is step(n)
  // with, at each of those points, corr += lambda * ((u_prev - 2 u) + u_new), lambda = q / c2
  // as the GPU forms it (cuda/kernels/wave_imaging.cuh, lambda_of), in double and rounded to
  // T (q the adjoint's field in this backend's layout and memory, corr sums of that layout:
  // interior origins). The box's other points, sources and ring are the caller's to correlate.
  // `layers` false: step_without_layers(n) instead of step(n) (the same bits in the interior).
  virtual std::array<int, 6> correlating_box() const { return {}; }
  virtual void step_correlating(int, const T*, T*, bool /*layers*/) {
    throw Error("internal: this wave backend has no correlating step");
  }
  virtual void swap_time() {
    std::vector<NamedArray<T>> state = save();
    NamedArray<T>*u = nullptr, *u_prev = nullptr;
    for (NamedArray<T>& a : state) {
      if (a.name == "u") u = &a;
      if (a.name == "u_prev") u_prev = &a;
    }
    if (u && u_prev) std::swap(u->data, u_prev->data);
    load(state);
  }

 private:
  static T& at(Field<T>& f, std::size_t i) {  // a dense index's point of a host field
    const std::size_t nx = std::size_t(f.extent().nx), ny = std::size_t(f.extent().ny);
    return f(int(i % nx), int(i / nx % ny), int(i / (nx * ny)));
  }
  std::vector<std::vector<NamedArray<T>>> kept_;
  std::vector<std::size_t> ring_points_;
  std::vector<T> rings_;
};

}  // namespace strata::wave

// Each backend's factory, reached by the driver (solver.cpp) through on_backend
// (dispatch/backend.hpp) from the plan's device. A build without CUDA compiles no call of the
// CUDA one and needs no definition of it.
namespace strata::cpu {
template <class T>
std::unique_ptr<wave::Backend<T>> make_wave_backend(Tag, const wave::Setup& s);
}  // namespace strata::cpu

namespace strata::cuda {
template <class T>
std::unique_ptr<wave::Backend<T>> make_wave_backend(Tag, const wave::Setup& s);
}  // namespace strata::cuda
