// The wave scheme of backend/wave.hpp as plain loops: every sum in double, one rounding
// to T per stored value, so it is the oracle the CUDA kernels are tested against. The update
// and the CPML corrections of a point are summed before the one store (no second pass).
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "backend/wave.hpp"
#include "backend/wave_ghosts.hpp"
#include "cpu/cpu.hpp"
#include "strata/reduce.hpp"

namespace strata::wave {

namespace {

template <class T>
class CpuBackend final : public Backend<T> {
public:
  explicit CpuBackend(const Setup& s)
      : s_(s), u_(s.n, s.radius), up_(s.n, s.radius), c2_(s.n.points(), 0.0) {
    for (const PmlFace& f : s_.pml) {
      psi_.emplace_back(f.points(), T(0));
      zeta_.emplace_back(f.points(), T(0));
    }
    traces_.assign(std::size_t(s_.trace_rows) * s_.receivers.size(), T(0));
  }

  void set_velocity(std::span<const T> v, double dt_over_h) override {
    require(v.size() == c2_.size(), "internal: velocity model of the wrong size");
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double c = double(v[i]) * dt_over_h;
      c2_[i] = c * c;
    }
  }

  void set_velocity_planes(std::span<const T> planes, double dt_over_h) override {
    require(planes.size() == std::size_t(s_.n.nz), "internal: velocity planes of the wrong count");
    const std::size_t plane = std::size_t(s_.n.nx) * s_.n.ny;
    for (std::size_t z = 0; z < planes.size(); ++z) {
      const double c = double(planes[z]) * dt_over_h;
      std::fill(c2_.begin() + std::ptrdiff_t(z * plane), c2_.begin() + std::ptrdiff_t((z + 1) * plane), c * c);
    }
  }

  bool wavefield_finite() override { return check_finite(u_).all_finite; }

  void set_wavelets(int first, int count, std::span<const double> amps) override {
    wl_first_ = first;
    wl_count_ = count;
    wavelets_.assign(amps.begin(), amps.end());
  }

  void step(int n) override { step(n, true); }
  void step_without_layers(int n) override { step(n, false); }

  void record(int row) override {
    const std::size_t nr = s_.receivers.size();
    for (std::size_t r = 0; r < nr; ++r) {
      double v = 0;
      for (const Tap& t : s_.receivers[r]) v += t.w * double(u_(t.x, t.y, t.z));
      traces_[std::size_t(row) * nr + r] = T(v);
    }
  }

  std::vector<T> traces(int rows) const override {
    return {traces_.begin(), traces_.begin() + std::ptrdiff_t(rows) * std::ptrdiff_t(s_.receivers.size())};
  }
  void set_traces(std::span<const T> data, int rows) override {
    require(data.size() == std::size_t(rows) * s_.receivers.size() && rows <= s_.trace_rows,
            "internal: trace rows of the wrong size");
    std::copy(data.begin(), data.end(), traces_.begin());
  }

  void read_state(const StateSlot& slot, std::size_t first, std::size_t count, T* dst) const override {
    const std::vector<T>* dense_array = slot.kind == StateSlot::psi    ? &psi_[slot.layer]
                                        : slot.kind == StateSlot::zeta ? &zeta_[slot.layer]
                                                                       : nullptr;
    if (dense_array) return void(std::copy_n(dense_array->data() + first, count, dst));
    const Field<T>& f = slot.kind == StateSlot::u ? u_ : up_;
    const std::size_t nx = std::size_t(s_.n.nx), plane = nx * std::size_t(s_.n.ny);
    for (std::size_t i = first; i < first + count; i += nx) {  // whole rows
      const int y = int(i % plane / nx), z = int(i / plane);
      std::copy_n(&f(0, y, z), nx, dst + (i - first));
    }
  }

  std::vector<NamedArray<T>> save() const override {
    std::vector<NamedArray<T>> out;
    for (const StateSlot& slot : state_slots(s_)) {
      const std::string name = state_name(slot, s_);
      switch (slot.kind) {
        case StateSlot::u: out.push_back({name, dense(u_)}); break;
        case StateSlot::u_prev: out.push_back({name, dense(up_)}); break;
        case StateSlot::psi: out.push_back({name, psi_[slot.layer]}); break;
        case StateSlot::zeta: out.push_back({name, zeta_[slot.layer]}); break;
      }
    }
    return out;
  }

  void load(const std::vector<NamedArray<T>>& arrays) override {
    for (const auto& a : arrays) {
      const StateSlot slot = state_slot(a.name, a.data.size(), s_);
      switch (slot.kind) {
        case StateSlot::u: u_.load_interior(a.data); break;
        case StateSlot::u_prev: up_.load_interior(a.data); break;
        case StateSlot::psi: psi_[slot.layer] = a.data; break;
        case StateSlot::zeta: zeta_[slot.layer] = a.data; break;
      }
    }
  }

  Field<T>& wavefield() override { return u_; }
  Field<T>& previous_wavefield() override { return up_; }
  void set_halo_exchange(std::function<void(void*, void*)> exchange) override { exchange_ = std::move(exchange); }

  void synchronize() override {}

private:
  // `layers` false (step_without_layers): neither psi nor the points outside the interior box.
  void step(int n, bool layers) {
    fill_ghosts();
    if (layers)
      for (std::size_t f = 0; f < s_.pml.size(); ++f) update_psi(f);
    update(n, layers);
    std::swap(u_, up_);
    if (exchange_) exchange_(nullptr, nullptr);  // the receivers and the next step read fresh ghosts
  }

  static std::vector<T> dense(const Field<T>& f) {
    std::vector<T> v(f.extent().points());
    f.store_interior(v);
    return v;
  }

  // Ghosts of every non-pml face over the interior cross-section (a star never reads edges
  // or corners); pml faces keep the zeros the fields were allocated with. Too little work
  // for threads.
  void fill_ghosts() {
    const Extent n = s_.n;
    const int R = s_.radius;
    const int len[3] = {n.nx, n.ny, n.nz};
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {
        const FaceKind lo = s_.faces[2 * axis], hi = s_.faces[2 * axis + 1];
        if ((side ? hi : lo) == FaceKind::pml) continue;
        const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;  // the two other axes
        for (int j2 = 0; j2 < len[a2]; ++j2)
          for (int j1 = 0; j1 < len[a1]; ++j1)
            for (int k = 1; k <= R; ++k) {
              const int g = side ? len[axis] - 1 + k : -k;
              const MirrorSource m = mirror_source(g, len[axis], lo, hi);
              int p[3], q[3];
              p[axis] = g, q[axis] = m.index;
              p[a1] = q[a1] = j1;
              p[a2] = q[a2] = j2;
              u_(p[0], p[1], p[2]) = m.sign == 0 ? T(0) : T(m.sign) * u_(q[0], q[1], q[2]);
            }
      }
  }

  // Threads pay off only when a step is long against a fork/join (and against spinning
  // waits on a shared machine): about a million points.
  bool threaded() const { return s_.n.points() >= (std::size_t(1) << 20); }

  // Element strides along each axis: of u's layout, and of a face's dense box.
  std::array<std::ptrdiff_t, 3> u_strides() const {
    return {1, u_.layout().pitch, u_.layout().plane};
  }
  static std::array<std::ptrdiff_t, 3> box_strides(const PmlFace& f) {
    const std::ptrdiff_t wx = f.hi[0] - f.lo[0], wy = f.hi[1] - f.lo[1];
    return {1, wx, wx * wy};
  }
  static std::size_t local_index(const PmlFace& f, int x, int y, int z) {
    const std::size_t wx = f.hi[0] - f.lo[0], wy = f.hi[1] - f.lo[1];
    return (std::size_t(z - f.lo[2]) * wy + std::size_t(y - f.lo[1])) * wx + std::size_t(x - f.lo[0]);
  }

  // psi = b psi + a D1 u over the face's box.
  void update_psi(std::size_t fi) {
    const PmlFace& f = s_.pml[fi];
    const int R = s_.radius;
    const std::ptrdiff_t su = u_strides()[f.axis];
    T* psi = psi_[fi].data();
#pragma omp parallel for if (threaded())
    for (int z = f.lo[2]; z < f.hi[2]; ++z)
      for (int y = f.lo[1]; y < f.hi[1]; ++y) {
        const T* u = &u_(0, y, z);
        T* row = psi + local_index(f, f.lo[0], y, z);
        for (int x = f.lo[0]; x < f.hi[0]; ++x) {
          const int p[3] = {x, y, z};
          const int i = p[f.axis] - f.lo[f.axis];
          double du = 0;
          for (int r = 1; r <= R; ++r) du += s_.d1[r] * (double(u[x + r * su]) - double(u[x - r * su]));
          T& v = row[x - f.lo[0]];
          v = T(f.b[i] * double(v) + f.a[i] * du);
        }
      }
  }

  // Adds D1 psi + zeta (updating zeta) of face fi to corr[x] along row (y, z), x in the box.
  void add_corrections(std::size_t fi, int y, int z, double* corr) {
    const PmlFace& f = s_.pml[fi];
    const int R = s_.radius;
    const std::ptrdiff_t su = u_strides()[f.axis], sp = box_strides(f)[f.axis];
    const T* psi = psi_[fi].data();
    const std::size_t row0 = local_index(f, f.lo[0], y, z);
    T* zeta = zeta_[fi].data() + row0;
    const T* u = &u_(0, y, z);
    for (int x = f.lo[0]; x < f.hi[0]; ++x) {
      const int p[3] = {x, y, z};
      const int q = p[f.axis], i = q - f.lo[f.axis];
      const std::size_t li = row0 + std::size_t(x - f.lo[0]);
      double dpsi = 0, d2u = s_.d2[0] * double(u[x]);
      for (int r = 1; r <= R; ++r) {  // psi is 0 outside its layer
        const double up = q + r < f.hi[f.axis] ? double(psi[li + r * sp]) : 0.0;
        const double dn = q - r >= f.lo[f.axis] ? double(psi[li - r * sp]) : 0.0;
        dpsi += s_.d1[r] * (up - dn);
        d2u += s_.d2[r] * (double(u[x + r * su]) + double(u[x - r * su]));
      }
      T& zv = zeta[x - f.lo[0]];
      const double znew = f.b[i] * double(zv) + f.a[i] * (d2u + dpsi);
      zv = T(znew);
      corr[x] += dpsi + znew;
    }
  }

  // u_prev <- 2u - u_prev + c2 (Lap u + CPML terms) + sources, then the caller swaps. The
  // CPML terms of a row are gathered first, so each point is rounded to T once. `layers`
  // false: the interior box's points alone, whose CPML terms are 0 (a row through a layer
  // still adds that 0, so the bits are the whole update's), zeta left as it is.
  void update(int step, bool layers) {
    const Extent n = s_.n;
    const int R = s_.radius;
    const std::vector<double>& c = s_.lap;
    const std::ptrdiff_t py = u_.layout().pitch, pz = u_.layout().plane;
    std::array<std::array<int, 3>, 2> box{std::array<int, 3>{0, 0, 0}, {n.nx, n.ny, n.nz}};
    if (!layers) box = interior_box(s_);
#pragma omp parallel if (threaded())
    {
      std::vector<double> corr(std::size_t(n.nx));
#pragma omp for
      for (int z = box[0][2]; z < box[1][2]; ++z)
        for (int y = box[0][1]; y < box[1][1]; ++y) {
          bool any = false;
          for (std::size_t f = 0; f < s_.pml.size(); ++f) {
            const PmlFace& pf = s_.pml[f];
            if (y < pf.lo[1] || y >= pf.hi[1] || z < pf.lo[2] || z >= pf.hi[2]) continue;
            if (!any) std::fill(corr.begin(), corr.end(), 0.0);
            any = true;
            if (layers) add_corrections(f, y, z, corr.data());
          }
          const T* u = &u_(0, y, z);
          T* out = &up_(0, y, z);
          const double* c2 = c2_.data() + (std::size_t(z) * n.ny + y) * n.nx;
          for (int x = box[0][0]; x < box[1][0]; ++x) {
            double lap = c[0] * double(u[x]);
            for (int r = 1; r <= R; ++r)
              lap += c[r] * (double(u[x - r]) + double(u[x + r]) + double(u[x - r * py]) + double(u[x + r * py]) +
                             double(u[x - r * pz]) + double(u[x + r * pz]));
            if (any) lap += corr[x];
            out[x] = T(2.0 * double(u[x]) - double(out[x]) + c2[x] * lap);
          }
        }
    }
    if (s_.sources.empty()) return;
    require(step >= wl_first_ && step < wl_first_ + wl_count_,
            "internal: no source amplitudes loaded for step " + std::to_string(step));
    const std::size_t ns = s_.sources.size();
    for (std::size_t j = 0; j < ns; ++j) {
      const double amp = wavelets_[std::size_t(step - wl_first_) * ns + j];
      for (const Tap& t : s_.sources[j]) up_(t.x, t.y, t.z) = T(double(up_(t.x, t.y, t.z)) + t.w * amp);
    }
  }

  Setup s_;
  Field<T> u_, up_;
  std::vector<double> c2_;
  std::vector<std::vector<T>> psi_, zeta_;
  std::vector<double> wavelets_;
  int wl_first_ = 0, wl_count_ = 0;
  std::vector<T> traces_;
  std::function<void(void*, void*)> exchange_;
};

}  // namespace

}  // namespace strata::wave

namespace strata::cpu {

template <class T>
std::unique_ptr<wave::Backend<T>> make_wave_backend(Tag, const wave::Setup& s) {
  return std::make_unique<wave::CpuBackend<T>>(s);
}

template std::unique_ptr<wave::Backend<float>> make_wave_backend(Tag, const wave::Setup&);
template std::unique_ptr<wave::Backend<double>> make_wave_backend(Tag, const wave::Setup&);

}  // namespace strata::cpu
