// The transpose of src/cpu/wave.cpp's step, statement by statement in reverse order: where
// the step gathers (out[p] += w * in[q]) this scatters (in_bar[q] += w * out_bar[p]). The
// adjoint of u's ghost layers is kept on a grid with ghosts and folded back onto the
// interior points the ghosts mirror (the transpose of the ghost fill). Plain loops in
// double, one process: the oracle a GPU adjoint will be tested against.
#include <algorithm>
#include <array>
#include <cstddef>

#include "backend/wave_adjoint.hpp"
#include "backend/wave_ghosts.hpp"
#include "cpu/cpu.hpp"

namespace strata::wave {

namespace {

template <class T>
class CpuAdjoint final : public AdjointBackend<T> {
 public:
  explicit CpuAdjoint(const Setup& s)
      : s_(s), n_(s.n.points()), u_(n_, 0.0), up_(n_, 0.0), c2_(n_, 0.0) {
    const int R = s_.radius;
    ext_ = {s_.n.nx + 2 * R, s_.n.ny + 2 * R, s_.n.nz + 2 * R};
    g_.assign(std::size_t(ext_[0]) * ext_[1] * ext_[2], 0.0);
    for (const PmlFace& f : s_.pml) {
      psi_.emplace_back(f.points(), 0.0);
      zeta_.emplace_back(f.points(), 0.0);
    }
  }

  void set_velocity(std::span<const T> v, double dt_over_h) override {
    require(v.size() == n_, "internal: velocity model of the wrong size");
    for (std::size_t i = 0; i < n_; ++i) {
      const double c = double(v[i]) * dt_over_h;  // as the forward backends form it
      c2_[i] = c * c;
    }
  }

  void set_velocity_planes(std::span<const T> planes, double dt_over_h) override {
    require(planes.size() == std::size_t(s_.n.nz), "internal: velocity planes of the wrong count");
    const std::size_t plane = std::size_t(s_.n.nx) * s_.n.ny;
    for (std::size_t z = 0; z < planes.size(); ++z) {
      const double c = double(planes[z]) * dt_over_h;
      std::fill_n(c2_.begin() + std::ptrdiff_t(z * plane), plane, c * c);
    }
  }

  std::vector<NamedArray<double>> save() const override {
    std::vector<NamedArray<double>> out;
    for (const StateSlot& slot : state_slots(s_))
      out.push_back({state_name(slot, s_), array(slot)});
    return out;
  }

  void load(const std::vector<NamedArray<double>>& arrays) override {
    std::fill(u_.begin(), u_.end(), 0.0);
    std::fill(up_.begin(), up_.end(), 0.0);
    for (std::size_t f = 0; f < s_.pml.size(); ++f) {
      std::fill(psi_[f].begin(), psi_[f].end(), 0.0);
      std::fill(zeta_[f].begin(), zeta_[f].end(), 0.0);
    }
    for (const NamedArray<double>& a : arrays) {
      const StateSlot slot = state_slot(a.name, a.data.size(), s_);
      std::vector<double>& dst = slot.kind == StateSlot::u        ? u_
                                 : slot.kind == StateSlot::u_prev ? up_
                                 : slot.kind == StateSlot::psi    ? psi_[slot.layer]
                                                                  : zeta_[slot.layer];
      dst = a.data;
    }
  }

  void inject_at_receivers(std::span<const double> values) override {
    require(values.size() == s_.receivers.size(), "internal: one value per receiver");
    for (std::size_t j = 0; j < values.size(); ++j)
      for (const Tap& t : s_.receivers[j]) u_[dense(t.x, t.y, t.z)] += t.w * values[j];
  }

  void sample_at_sources(std::span<double> out) const override {
    require(out.size() == s_.sources.size(), "internal: one value per source");
    for (std::size_t j = 0; j < out.size(); ++j) {
      double v = 0;
      for (const Tap& t : s_.sources[j]) v += t.w * u_[dense(t.x, t.y, t.z)];
      out[j] = v;
    }
  }

  std::span<const double> adjoint_u() const override { return u_; }

  void begin_imaging(std::span<const double> wavelets, bool illumination) override {
    require(s_.sources.empty() || wavelets.size() % s_.sources.size() == 0,
            "internal: the wavelets are not whole rows of one value per source");
    wavelets_.assign(wavelets.begin(), wavelets.end());
    corr_.assign(n_, 0.0);
    ill_.assign(illumination ? n_ : 0, 0.0);
    second_.assign(n_, 0.0);
    next_.assign(n_, T(0));
  }

  void illuminate(const Field<T>& u) override {
    require(ill_.size() == n_, "internal: illuminate before begin_imaging, or without its sum");
    for_points([&](std::size_t i, int x, int y, int z) {
      const double v = double(u(x, y, z));
      ill_[i] += v * v;
    });
  }

  void keep(const Field<T>& u) override {
    require(next_.size() == n_, "internal: keep before begin_imaging");
    for_points([&](std::size_t i, int x, int y, int z) { next_[i] = u(x, y, z); });
  }

  void correlate(const Field<T>& now, const Field<T>& prev, int n) override {
    require(corr_.size() == n_, "internal: correlate before begin_imaging");
    const std::size_t ns = s_.sources.size();
    require((std::size_t(n) + 1) * ns <= wavelets_.size(), "internal: no wavelet row for the step");
    for_points([&](std::size_t i, int x, int y, int z) {
      second_[i] = double(next_[i]) - 2.0 * double(now(x, y, z)) + double(prev(x, y, z));
    });
    for (std::size_t j = 0; j < ns; ++j)
      for (const Tap& t : s_.sources[j])
        second_[(std::size_t(t.z) * s_.n.ny + std::size_t(t.y)) * s_.n.nx + std::size_t(t.x)] -=
            t.w * wavelets_[std::size_t(n) * ns + j];
    for (std::size_t i = 0; i < n_; ++i) corr_[i] += u_[i] * second_[i];
    keep(now);
  }

  void correlation(std::span<double> out) const override {
    require(out.size() == corr_.size(), "internal: correlation into an array of the wrong size");
    std::copy(corr_.begin(), corr_.end(), out.begin());
  }
  void illumination(std::span<double> out) const override {
    require(ill_.size() == out.size(),
            "internal: illumination without its sum, or of the wrong size");
    std::copy(ill_.begin(), ill_.end(), out.begin());
  }

  // The forward step, with w its new u and h = Lap g + sum over layers of (D1 psi' + zeta'),
  // g being u with its ghosts filled:
  //   psi' = b psi + a D1 g;  zeta' = b zeta + a (D2 g + D1 psi');  w = 2u - u_prev + c2 h;
  //   then (u, u_prev) <- (w, u).
  // Transposed, from the adjoints of the outputs (u_bar = w_bar, up_bar = the adjoint of u):
  void step_back() override {
    const std::vector<double>& wbar = u_;  // the adjoint of w
    std::vector<double> hbar(n_);
    for (std::size_t i = 0; i < n_; ++i) hbar[i] = c2_[i] * wbar[i];
    std::fill(g_.begin(), g_.end(), 0.0);
    scatter_laplacian(hbar);
    for (std::size_t f = 0; f < s_.pml.size(); ++f) layer_back(f, hbar);
    // u_bar = up_bar' + 2 w_bar + G^T g_bar;  up_bar = -w_bar
    std::vector<double> ubar(n_);
    for (std::size_t i = 0; i < n_; ++i) ubar[i] = up_[i] + 2.0 * wbar[i];
    for (std::size_t i = 0; i < n_; ++i) up_[i] = -wbar[i];
    fold_ghosts(ubar);
    u_ = std::move(ubar);
  }

 private:
  // f(dense index, x, y, z) over the grid's points in [z][y][x] order.
  template <class F>
  void for_points(F&& f) const {
    std::size_t i = 0;
    for (int z = 0; z < s_.n.nz; ++z)
      for (int y = 0; y < s_.n.ny; ++y)
        for (int x = 0; x < s_.n.nx; ++x) f(i++, x, y, z);
  }

  std::vector<double> array(const StateSlot& slot) const {
    switch (slot.kind) {
      case StateSlot::u:
        return u_;
      case StateSlot::u_prev:
        return up_;
      case StateSlot::psi:
        return psi_[slot.layer];
      case StateSlot::zeta:
        return zeta_[slot.layer];
    }
    return {};
  }

  std::size_t dense(int x, int y, int z) const {
    return (std::size_t(z) * s_.n.ny + std::size_t(y)) * s_.n.nx + std::size_t(x);
  }
  // Index on the grid with ghosts (coordinates from -radius).
  std::size_t ext(int x, int y, int z) const {
    const int R = s_.radius;
    return (std::size_t(z + R) * ext_[1] + std::size_t(y + R)) * ext_[0] + std::size_t(x + R);
  }
  std::array<std::ptrdiff_t, 3> ext_strides() const {
    return {1, std::ptrdiff_t(ext_[0]), std::ptrdiff_t(ext_[0]) * ext_[1]};
  }
  static std::size_t box_index(const PmlFace& f, const int p[3]) {
    const std::size_t wx = f.hi[0] - f.lo[0], wy = f.hi[1] - f.lo[1];
    return (std::size_t(p[2] - f.lo[2]) * wy + std::size_t(p[1] - f.lo[1])) * wx +
           std::size_t(p[0] - f.lo[0]);
  }

  // h = Lap g:  h[p] = lap0 g[p] + sum_r lap_r (g[p +- r e_a]) over the three axes.
  void scatter_laplacian(const std::vector<double>& hbar) {
    const int R = s_.radius;
    const std::vector<double>& c = s_.lap;
    const auto st = ext_strides();
    for (int z = 0; z < s_.n.nz; ++z)
      for (int y = 0; y < s_.n.ny; ++y)
        for (int x = 0; x < s_.n.nx; ++x) {
          const double hb = hbar[dense(x, y, z)];
          if (hb == 0) continue;
          double* g = &g_[ext(x, y, z)];
          g[0] += c[0] * hb;
          for (int r = 1; r <= R; ++r)
            for (int a = 0; a < 3; ++a) {
              g[r * st[a]] += c[r] * hb;
              g[-r * st[a]] += c[r] * hb;
            }
        }
  }

  // One layer, its three forward statements transposed in reverse order. psi is 0 outside
  // its box (the D1 of psi reads nothing there); u is read through g.
  void layer_back(std::size_t fi, const std::vector<double>& hbar) {
    const PmlFace& f = s_.pml[fi];
    const int R = s_.radius, ax = f.axis;
    const std::size_t m = f.points();
    const std::ptrdiff_t sg = ext_strides()[ax];
    const std::ptrdiff_t sb = ax == 0   ? 1
                              : ax == 1 ? f.hi[0] - f.lo[0]
                                        : std::ptrdiff_t(f.hi[0] - f.lo[0]) * (f.hi[1] - f.lo[1]);
    std::vector<double> zbar(m), pbar(psi_[fi]), tbar(m);  // zeta', psi' adjoints; a zeta_bar'
    // h += D1 psi' + zeta' over the box: the adjoints of zeta' and psi' gain hbar.
    for_box(f, [&](const int p[3], std::size_t li) {
      const double hb = hbar[dense(p[0], p[1], p[2])];
      zbar[li] = zeta_[fi][li] + hb;
      scatter_d1_box(f, p, li, sb, hb, pbar);
    });
    // zeta' = b zeta + a (D2 g + D1 psi')
    for_box(f, [&](const int p[3], std::size_t li) {
      const int i = p[ax] - f.lo[ax];
      const double t = f.a[i] * zbar[li];
      zeta_[fi][li] = f.b[i] * zbar[li];
      tbar[li] = t;
      double* g = &g_[ext(p[0], p[1], p[2])];
      g[0] += s_.d2[0] * t;
      for (int r = 1; r <= R; ++r) {
        g[r * sg] += s_.d2[r] * t;
        g[-r * sg] += s_.d2[r] * t;
      }
    });
    for_box(f,
            [&](const int p[3], std::size_t li) { scatter_d1_box(f, p, li, sb, tbar[li], pbar); });
    // psi' = b psi + a D1 g
    for_box(f, [&](const int p[3], std::size_t li) {
      const int i = p[ax] - f.lo[ax];
      const double sv = f.a[i] * pbar[li];
      psi_[fi][li] = f.b[i] * pbar[li];
      double* g = &g_[ext(p[0], p[1], p[2])];
      for (int r = 1; r <= R; ++r) {
        g[r * sg] += s_.d1[r] * sv;
        g[-r * sg] -= s_.d1[r] * sv;
      }
    });
  }

  // The transpose of (D1 psi)[p] = sum_r d1_r (psi[p + r] - psi[p - r]) with psi 0 outside
  // the box: the adjoint of psi at p +- r gains +- d1_r * v.
  void scatter_d1_box(const PmlFace& f, const int p[3], std::size_t li, std::ptrdiff_t sb, double v,
                      std::vector<double>& pbar) const {
    if (v == 0) return;
    const int q = p[f.axis];
    for (int r = 1; r <= s_.radius; ++r) {
      if (q + r < f.hi[f.axis]) pbar[std::size_t(std::ptrdiff_t(li) + r * sb)] += s_.d1[r] * v;
      if (q - r >= f.lo[f.axis]) pbar[std::size_t(std::ptrdiff_t(li) - r * sb)] -= s_.d1[r] * v;
    }
  }

  template <class F>
  static void for_box(const PmlFace& f, F&& fn) {
    for (int z = f.lo[2]; z < f.hi[2]; ++z)
      for (int y = f.lo[1]; y < f.hi[1]; ++y)
        for (int x = f.lo[0]; x < f.hi[0]; ++x) {
          const int p[3] = {x, y, z};
          fn(p, box_index(f, p));
        }
  }

  // u_bar = interior of g_bar + the transpose of the ghost fill: a ghost that holds sign *
  // u[mirror] gives sign * its adjoint to the mirror point; a pml face's ghosts hold 0 and
  // give nothing. Only the interior cross-section of each face is filled (a star reads no
  // edge or corner), so every mirror point is an interior one.
  void fold_ghosts(std::vector<double>& ubar) const {
    const Extent n = s_.n;
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) ubar[dense(x, y, z)] += g_[ext(x, y, z)];
    const int R = s_.radius;
    const int len[3] = {n.nx, n.ny, n.nz};
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {
        const FaceKind lo = s_.faces[2 * axis], hi = s_.faces[2 * axis + 1];
        if ((side ? hi : lo) == FaceKind::pml) continue;
        const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
        for (int j2 = 0; j2 < len[a2]; ++j2)
          for (int j1 = 0; j1 < len[a1]; ++j1)
            for (int k = 1; k <= R; ++k) {
              const int gi = side ? len[axis] - 1 + k : -k;
              const MirrorSource ms = mirror_source(gi, len[axis], lo, hi);
              if (ms.sign == 0) continue;
              int p[3], q[3];
              p[axis] = gi, q[axis] = ms.index;
              p[a1] = q[a1] = j1;
              p[a2] = q[a2] = j2;
              ubar[dense(q[0], q[1], q[2])] += double(ms.sign) * g_[ext(p[0], p[1], p[2])];
            }
      }
  }

  Setup s_;
  std::size_t n_;
  std::array<int, 3> ext_{};
  std::vector<double> u_, up_, c2_, g_;
  std::vector<std::vector<double>> psi_, zeta_;
  // The imaging condition's sums and what it keeps between calls (begin_imaging).
  std::vector<double> wavelets_, corr_, ill_, second_;
  std::vector<T> next_;
};

}  // namespace

}  // namespace strata::wave

namespace strata::cpu {

template <class T>
std::unique_ptr<wave::AdjointBackend<T>> make_wave_adjoint(Tag, const wave::Setup& s) {
  require(s.exchanged == std::array<bool, 6>{},
          "the wave adjoint runs in one process (no exchanged faces) for now");
  return std::make_unique<wave::CpuAdjoint<T>>(s);
}

template std::unique_ptr<wave::AdjointBackend<float>> make_wave_adjoint(Tag, const wave::Setup&);
template std::unique_ptr<wave::AdjointBackend<double>> make_wave_adjoint(Tag, const wave::Setup&);

}  // namespace strata::cpu
