// Repeated stencil steps (strata/steps.hpp): validated once, then passes of `fuse` steps
// where the backend has a fused kernel and single steps (one ghost fill, one pass) for the
// rest, through the backend seam, ping-ponging between u and one scratch field.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "backend/stencil.hpp"
#include "base/runtime.hpp"
#include "dispatch/backend.hpp"
#include "strata/apply.hpp"
#include "strata/steps.hpp"

namespace strata {

template <class T>
int auto_fuse(const Stencil& s, Memory memory) {
  return on_backend(memory, [&](auto tag) { return auto_steps_per_pass<T>(tag, s); });
}

template <class T>
void apply_steps(const Stencil& s, Field<T>& u, const Boundary& bc, int steps, const StepOptions& o,
                 Stream stream) {
  if (steps <= 0 || u.empty()) {
    Field<T> none;
    return apply_steps(s, u, none, bc, steps, o, stream);  // validates, allocates nothing
  }
  Field<T> scratch(u.extent(), u.ghost(), u.memory());  // the same layout as u
  apply_steps(s, u, scratch, bc, steps, o, stream);
}

template <class T>
void apply_steps(const Stencil& s, Field<T>& u, Field<T>& scratch, const Boundary& bc, int steps,
                 const StepOptions& o, Stream stream) {
  require(!u.empty(), "apply_steps: empty field");
  require(steps >= 0, "apply_steps: steps must be >= 0, got " + std::to_string(steps));
  require(u.ghost() >= s.radius(), "apply_steps: " + s.name() + " has radius " +
                                       std::to_string(s.radius()) + " but the field has " +
                                       std::to_string(u.ghost()) + " ghost layers");
  require(o.update == StepUpdate::repeat || std::isfinite(o.c),
          "apply_steps: the relaxation factor c must be finite, got " + std::to_string(o.c));
  require(o.fuse >= 0, "apply_steps: fuse must be >= 0 (steps per pass; 0: strata's choice), got " +
                           std::to_string(o.fuse));
  if (steps == 0) return;
  require(scratch.data() != u.data() && scratch.extent() == u.extent() &&
              scratch.ghost() == u.ghost() && scratch.memory() == u.memory(),
          "apply_steps: the scratch field must be a second field with u's extent (" +
              u.extent().str() + "), ghost width (" + std::to_string(u.ghost()) +
              ") and memory; got " +
              (scratch.data() == u.data()
                   ? std::string("u's own storage")
                   : scratch.extent().str() + " with ghost " + std::to_string(scratch.ghost())));
  const bool periodic = bc.kind == BoundaryKind::periodic;
  const int fuse = o.fuse > 0 ? o.fuse : auto_fuse<T>(s, u.memory());
  Field<T>* cur = &u;
  Field<T>* next = &scratch;
  // Dirichlet ghosts hold the boundary value, and no pass writes ghosts, so a field filled
  // once stays filled through the single steps that follow (at 512^3 the fill costs ~10 % of
  // a 7-point pass, scattered writes of the x faces). Neumann and periodic ghosts mirror the
  // interior and are filled before every pass. A fused pass forgets its output's state.
  bool filled[2] = {false, false};  // u, scratch
  auto fill_once = [&](Field<T>& f, int width) {
    bool& done = filled[&f == &u ? 0 : 1];
    if (bc.kind == BoundaryKind::dirichlet && done) return;
    fill_ghosts(f, bc, width, stream);
    done = true;
  };
  // Where the backend has no pass of the steps asked for, every step is single: the
  // remainder does not take a shorter fused pass either (the radius-4 star's two-step pass
  // is slower than two single steps).
  bool fusable = fuse > 1;
  for (int t = 0; t < steps;) {
    // k steps in one pass where the backend has the kernel (periodic: its ghosts k R wide).
    int k = std::min(fuse, steps - t);
    if (periodic) k = std::min(k, cur->ghost() / s.radius());
    if (k > 1 && fusable) {
      if (periodic) fill_ghosts(*cur, bc, k * s.radius(), stream);
      const bool fused = on_backend(u.memory(), [&](auto tag) {
        return fused_steps(tag, s, o, k, bc, *cur, *next, stream.handle);
      });
      if (fused) {
        filled[next == &u ? 0 : 1] = false;
        std::swap(cur, next);
        t += k;
        continue;
      }
      fusable = false;
    }
    fill_once(*cur, s.radius());
    if (o.update == StepUpdate::repeat)
      apply_interior(s, *cur, *next, stream);
    else
      on_backend(u.memory(),
                 [&](auto tag) { relax_interior(tag, s, o.c, *cur, *next, stream.handle); });
    std::swap(cur, next);
    ++t;
  }
  // An odd count leaves the result in the scratch field: u takes it, ghosts included.
  if (cur != &u)
    runtime::copy_bytes_async(u.data(), cur->data(), u.memory(), u.layout().bytes(), stream.handle);
}

#define STRATA_INSTANTIATE(T)                                                                    \
  template int auto_fuse<T>(const Stencil&, Memory);                                             \
  template void apply_steps(const Stencil&, Field<T>&, const Boundary&, int, const StepOptions&, \
                            Stream);                                                             \
  template void apply_steps(const Stencil&, Field<T>&, Field<T>&, const Boundary&, int,          \
                            const StepOptions&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata
