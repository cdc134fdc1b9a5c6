// Reference stencil passes: the formulas of stencil.hpp written as directly as possible,
// accumulated in double whatever T is, so they are the oracle for the fast kernels.
#include <array>
#include <cstdlib>

#include "cpu/cpu.hpp"

namespace strata::cpu {

namespace {

// What a pass stores from the stencil's sum acc at a point whose input value is u.
struct Store {
  double operator()(double acc, double) const { return acc; }
};
struct Relax {  // u + c (A u)
  double c;
  double operator()(double acc, double u) const { return u + c * acc; }
};

// The 27 box weights of a radius-1 stencil, or the star coefficients.
template <class T, class Epi = Store>
void apply_box(const std::array<double, 27>& k, const Field<T>& in, Field<T>& out, const Region& b,
               Epi epi = {}) {
#pragma omp parallel for if (threaded(b.points()))
  for (int z = b.z0; z < b.z0 + b.nz; ++z)
    for (int y = b.y0; y < b.y0 + b.ny; ++y)
      for (int x = b.x0; x < b.x0 + b.nx; ++x) {
        double acc = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              acc += k[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)] * double(in(x + dx, y + dy, z + dz));
        out(x, y, z) = T(epi(acc, double(in(x, y, z))));
      }
}

template <class T, class Epi = Store>
void apply_star(int R, std::span<const double> c, const Field<T>& in, Field<T>& out, const Region& b,
                Epi epi = {}) {
#pragma omp parallel for if (threaded(b.points()))
  for (int z = b.z0; z < b.z0 + b.nz; ++z)
    for (int y = b.y0; y < b.y0 + b.ny; ++y)
      for (int x = b.x0; x < b.x0 + b.nx; ++x) {
        double acc = c[0] * double(in(x, y, z));
        for (int r = 1; r <= R; ++r)
          acc += c[r] * (double(in(x - r, y, z)) + double(in(x + r, y, z)) +
                         double(in(x, y - r, z)) + double(in(x, y + r, z)) +
                         double(in(x, y, z - r)) + double(in(x, y, z + r)));
        out(x, y, z) = T(epi(acc, double(in(x, y, z))));
      }
}

}  // namespace

template <class T>
void apply_interior(Tag, const Stencil& s, const Field<T>& in, Field<T>& out, void*, Region r) {
  if (r.whole()) r = {0, 0, 0, in.extent().nx, in.extent().ny, in.extent().nz};
  if (s.kind() == StencilKind::star)
    apply_star(s.radius(), s.coeffs(), in, out, r);
  else
    apply_box(s.as_box27(), in, out, r);
}

template <class T>
void relax_interior(Tag, const Stencil& s, double c, const Field<T>& in, Field<T>& out, void*,
                    Region region) {
  const Region r = region.whole() ? Region{0, 0, 0, in.extent().nx, in.extent().ny, in.extent().nz} : region;
  if (s.kind() == StencilKind::star)
    apply_star(s.radius(), s.coeffs(), in, out, r, Relax{c});
  else
    apply_box(s.as_box27(), in, out, r, Relax{c});
}

// The CPU's ghost fill is a small part of its pass: it fills and applies.
template <class T>
bool apply_zero_ghosts(Tag, const Stencil&, const Field<T>&, Field<T>&, void*, Region,
                       std::array<bool, 3>) {
  return false;
}
template <class T>
bool reads_zeros_beyond(Tag, const Stencil&, const Field<T>&, void*, std::array<bool, 3>) {
  return false;
}

// The CPU takes its steps one at a time (its passes are the reference, not a rate).
template <class T>
bool fused_steps(Tag, const Stencil&, const StepOptions&, int, const Boundary&, const Field<T>&,
                 Field<T>&, void*) {
  return false;
}

template <class T>
int auto_steps_per_pass(Tag, const Stencil&) {
  return 1;  // no fused pass on the host
}

template <class T>
void copy_interior(const Field<T>& in, Field<T>& out) {
  const Extent n = in.extent();
#pragma omp parallel for if (threaded(n.points()))
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) out(x, y, z) = in(x, y, z);
}

template void apply_interior(Tag, const Stencil&, const Field<float>&, Field<float>&, void*,
                             Region);
template void apply_interior(Tag, const Stencil&, const Field<double>&, Field<double>&, void*,
                             Region);
template void relax_interior(Tag, const Stencil&, double, const Field<float>&, Field<float>&, void*,
                             Region);
template void relax_interior(Tag, const Stencil&, double, const Field<double>&, Field<double>&,
                             void*, Region);
template bool apply_zero_ghosts(Tag, const Stencil&, const Field<float>&, Field<float>&, void*, Region,
                                std::array<bool, 3>);
template bool apply_zero_ghosts(Tag, const Stencil&, const Field<double>&, Field<double>&, void*, Region,
                                std::array<bool, 3>);
template bool reads_zeros_beyond(Tag, const Stencil&, const Field<float>&, void*, std::array<bool, 3>);
template bool reads_zeros_beyond(Tag, const Stencil&, const Field<double>&, void*, std::array<bool, 3>);
template bool fused_steps(Tag, const Stencil&, const StepOptions&, int, const Boundary&,
                          const Field<float>&, Field<float>&, void*);
template bool fused_steps(Tag, const Stencil&, const StepOptions&, int, const Boundary&,
                          const Field<double>&, Field<double>&, void*);
template int auto_steps_per_pass<float>(Tag, const Stencil&);
template int auto_steps_per_pass<double>(Tag, const Stencil&);
template void copy_interior(const Field<float>&, Field<float>&);
template void copy_interior(const Field<double>&, Field<double>&);

}  // namespace strata::cpu
