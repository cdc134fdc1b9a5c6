// The overlapped distributed apply and steps: the interior computed while the halos travel,
// then the shell; the timeline a benchmark asks for (timeline.hpp).
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backend/stencil.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "parallel/timeline.hpp"
#include "strata/apply.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

namespace {

// The streams and events of the overlapped apply, made once per process (its GPU). The
// halo stream has the highest priority: its small kernels (packs, NCCL's, the shell) take
// SMs as soon as interior blocks retire instead of queueing behind the whole interior.
struct Overlap {
  void* halo = runtime::stream_create_high_priority();
  void* inputs_ready = runtime::event_create();
  void* shell_done = runtime::event_create();
  ~Overlap() {
    runtime::event_destroy(inputs_ready);
    runtime::event_destroy(shell_done);
    runtime::stream_destroy(halo);
  }
  static Overlap& get() {
    static Overlap o;
    return o;
  }
};

// The interior box that needs no ghost of the axes from `first` on, and the shell around it
// as disjoint boxes. Along x the cut is rounded out to 16 bytes (the kernels' loads start
// on one). An axis whose box is too thin for an interior goes wholly to the shell.
struct Split {
  Region interior;
  std::vector<Region> shell;
};

Split split(Extent n, int r, int first, int vec) {
  const int len[3] = {n.nx, n.ny, n.nz};
  int lo[3] = {0, 0, 0}, hi[3] = {len[0], len[1], len[2]};
  for (int a = first; a < 3; ++a) {
    lo[a] = r, hi[a] = len[a] - r;
    if (a == 0) lo[a] = (r + vec - 1) / vec * vec, hi[a] = (len[a] - r) / vec * vec;
    if (hi[a] <= lo[a]) lo[a] = len[a], hi[a] = len[a];  // no interior: the whole axis is shell
  }
  Split s;
  if (lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2])
    s.interior = {lo[0], lo[1], lo[2], hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  // Outer axes first: z slabs span the whole x-y plane, y slabs the interior z range, x
  // slabs the interior y and z ranges.
  int b0[3] = {0, 0, 0}, b1[3] = {len[0], len[1], len[2]};
  for (int a = 2; a >= first; --a) {
    for (int side = 0; side < 2; ++side) {
      const int s0 = side == 0 ? 0 : hi[a], s1 = side == 0 ? lo[a] : len[a];
      if (s1 <= s0) continue;
      int c0[3] = {b0[0], b0[1], b0[2]}, c1[3] = {b1[0], b1[1], b1[2]};
      c0[a] = s0, c1[a] = s1;
      if (c1[0] > c0[0] && c1[1] > c0[1] && c1[2] > c0[2])
        s.shell.push_back({c0[0], c0[1], c0[2], c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2]});
    }
    b0[a] = lo[a], b1[a] = hi[a];
  }
  return s;
}

template <class T>
void apply_region(const Stencil& s, const Field<T>& in, Field<T>& out, void* stream,
                  const Region& r) {
  on_backend(in.memory(), [&](auto tag) { apply_interior(tag, s, in, out, stream, r); });
}

// One pass over a box whose `r` ghost layers the pass fills first, pass(region, stream)
// computing the region: axes before the first split one need only local ghost fills, done
// at once (unless `fill_unsplit` is false: the pass reads none of their ghosts). The halo stream
// does the rest (exchanges, and the local fills that follow them, which read the exchanged ghosts
// at edges and corners) while the compute stream does the interior; the shell follows the halos on
// the halo stream, so it runs beside the interior's last blocks, and the compute stream then waits
// for it.
template <class T, class Pass>
void overlapped_pass(DistField<T>& in, const Boundary& bc, int r, Stream stream, bool fill_unsplit,
                     Pass&& pass) {
  int first = 0;
  while (first < 3 && in.grid().dims[first] == 1) ++first;
  for (int a = 0; fill_unsplit && a < first; ++a) in.fill_ghosts_axis(bc, r, a, stream);

  const bool device = in.local().memory() == Memory::device;
  Overlap* ov = device ? &Overlap::get() : nullptr;
  const Stream halo = device ? Stream{ov->halo} : stream;
  timeline::ApplyMarks& marks = timeline::apply_marks();
  const bool mark = device && marks.on;
  if (mark) runtime::event_record(marks.ev[0], stream.handle);
  if (device) {
    runtime::event_record(ov->inputs_ready, stream.handle);
    runtime::stream_wait(halo.handle, ov->inputs_ready);
  }
  for (int a = first; a < 3; ++a) in.fill_ghosts_axis(bc, r, a, halo);
  if (mark) runtime::event_record(marks.ev[1], halo.handle);

  const Split parts = split(in.local().extent(), r, first, 16 / int(sizeof(T)));
  if (!parts.interior.whole()) pass(parts.interior, stream.handle);
  if (mark) runtime::event_record(marks.ev[2], stream.handle);
  for (const Region& box : parts.shell) pass(box, halo.handle);
  if (mark) runtime::event_record(marks.ev[3], halo.handle);
  if (device) {
    runtime::event_record(ov->shell_done, halo.handle);
    runtime::stream_wait(stream.handle, ov->shell_done);
  }
}

}  // namespace

template <class T>
void apply(const Stencil& stencil, DistField<T>& in, DistField<T>& out, const Boundary& bc,
           Stream stream) {
  require(in.global() == out.global() && in.grid().dims == out.grid().dims &&
              in.local().memory() == out.local().memory(),
          "distributed apply: in and out must share the global extent, process grid and memory");
  require(&in != &out, "distributed apply: in and out must be distinct fields");
  const int r = stencil.radius();
  if (in.grid().ranks() == 1) return strata::apply(stencil, in.local(), out.local(), bc, stream);
  require(in.local().ghost() >= r, "distributed apply: ghost width " +
                                       std::to_string(in.local().ghost()) +
                                       " is below the stencil radius " + std::to_string(r));
  // Dirichlet +0 where x is not split: as one process's apply, the passes read +0 beyond the
  // box along the unsplit axes (the TMA loaders' zero fill) and the exchanged ghosts along the
  // split ones, and the unsplit axes' ghosts are not filled (their x ghosts are a scattered
  // write per row: with the fill a 512^3 box's apply took 0.370 ms on an H200, 0.313 alone).
  const std::array<bool, 3> real{false, in.grid().dims[1] > 1, in.grid().dims[2] > 1};
  const bool zeros = bc.kind == BoundaryKind::dirichlet && bc.value == 0.0 &&
                     !std::signbit(bc.value) && in.grid().dims[0] == 1 &&
                     on_backend(in.local().memory(), [&](auto tag) {
                       return reads_zeros_beyond(tag, stencil, in.local(), stream.handle, real);
                     });
  overlapped_pass(in, bc, r, stream, !zeros, [&](const Region& box, void* s) {
    if (!zeros) return apply_region(stencil, in.local(), out.local(), s, box);
    on_backend(in.local().memory(), [&](auto tag) {
      require(apply_zero_ghosts(tag, stencil, in.local(), out.local(), s, box, real),
              "internal: the zero-ghost pass refused a box it was said to take");
    });
  });
}

template <class T>
void apply_steps(const Stencil& s, DistField<T>& u, DistField<T>& scratch, const Boundary& bc,
                 int steps, const StepOptions& o, Stream stream) {
  require(steps >= 0, "distributed apply_steps: steps must be >= 0, got " + std::to_string(steps));
  require(&u != &scratch && u.global() == scratch.global() &&
              u.grid().dims == scratch.grid().dims &&
              u.local().ghost() == scratch.local().ghost() &&
              u.local().memory() == scratch.local().memory(),
          "distributed apply_steps: the scratch field must be a second field of u's grid " +
              u.global().str() + ", process grid " + u.grid().str() + ", ghost width " +
              std::to_string(u.local().ghost()) + " and memory");
  if (u.grid().ranks() == 1)
    return strata::apply_steps(s, u.local(), scratch.local(), bc, steps, o, stream);
  require(u.local().ghost() >= s.radius(),
          "distributed apply_steps: " + s.name() + " has radius " + std::to_string(s.radius()) +
              " but the fields have " + std::to_string(u.local().ghost()) + " ghost layers");
  require(o.update == StepUpdate::repeat || std::isfinite(o.c),
          "distributed apply_steps: the relaxation factor c must be finite, got " +
              std::to_string(o.c));
  require(o.fuse >= 0, "distributed apply_steps: fuse must be >= 0, got " + std::to_string(o.fuse));
  DistField<T>* cur = &u;
  DistField<T>* next = &scratch;
  for (int t = 0; t < steps; ++t) {
    // Each step as dist::apply's pass: the interior while the halos travel, then the shell.
    overlapped_pass(*cur, bc, s.radius(), stream, true, [&](const Region& box, void* st) {
      Field<T>& in = cur->local();
      Field<T>& out = next->local();
      if (o.update == StepUpdate::repeat)
        apply_region(s, in, out, st, box);
      else
        on_backend(in.memory(), [&](auto tag) { relax_interior(tag, s, o.c, in, out, st, box); });
    });
    std::swap(cur, next);
  }
  if (cur != &u)
    runtime::copy_bytes_async(u.local().data(), cur->local().data(), u.local().memory(),
                              u.local().layout().bytes(), stream.handle);
}

namespace timeline {
ApplyMarks& apply_marks() {
  static ApplyMarks m;
  return m;
}
}  // namespace timeline

#define STRATA_INSTANTIATE(T)                                                                   \
  template void apply(const Stencil&, DistField<T>&, DistField<T>&, const Boundary&, Stream);   \
  template void apply_steps(const Stencil&, DistField<T>&, DistField<T>&, const Boundary&, int, \
                            const StepOptions&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::dist
