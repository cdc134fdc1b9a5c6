// Names and sizes of the wave solver's checkpointed state arrays, and the interior its
// absorbing layers leave (backend/wave.hpp).
#include <algorithm>

#include "backend/wave.hpp"

#include "strata/error.hpp"

namespace strata::wave {

std::vector<StateSlot> state_slots(const Setup& s) {
  std::vector<StateSlot> slots = {{StateSlot::u, 0}, {StateSlot::u_prev, 0}};
  for (std::size_t f = 0; f < s.pml.size(); ++f) {
    slots.push_back({StateSlot::psi, f});
    slots.push_back({StateSlot::zeta, f});
  }
  return slots;
}

std::string state_name(const StateSlot& slot, const Setup& s) {
  switch (slot.kind) {
    case StateSlot::u: return "u";
    case StateSlot::u_prev: return "u_prev";
    case StateSlot::psi: return std::string("psi_") + kFaceNames[s.pml[slot.layer].face];
    case StateSlot::zeta: return std::string("zeta_") + kFaceNames[s.pml[slot.layer].face];
  }
  return "?";
}

std::size_t state_size(const StateSlot& slot, const Setup& s) {
  return slot.kind == StateSlot::u || slot.kind == StateSlot::u_prev ? s.n.points() : s.pml[slot.layer].points();
}

StateSlot state_slot(const std::string& name, std::size_t values, const Setup& s) {
  for (const StateSlot& slot : state_slots(s)) {
    if (state_name(slot, s) != name) continue;
    const std::size_t want = state_size(slot, s);
    require(values == want, "state array '" + name + "' has " + std::to_string(values) + " values, expected " +
                                std::to_string(want));
    return slot;
  }
  throw Error("unknown state array '" + name + "'");
}

std::array<std::array<int, 3>, 2> interior_box(const Setup& s) {
  std::array<int, 3> lo{0, 0, 0}, hi{s.n.nx, s.n.ny, s.n.nz};
  for (const PmlFace& f : s.pml) {
    const std::size_t a = std::size_t(f.axis);
    if (f.face % 2 == 0)
      lo[a] = std::max(lo[a], f.hi[a]);
    else
      hi[a] = std::min(hi[a], f.lo[a]);
  }
  return {lo, hi};
}

}  // namespace strata::wave
