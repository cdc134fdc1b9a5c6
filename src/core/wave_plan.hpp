// From a parsed configuration and its velocity model to everything a run is checked
// against before any step or file: boundary consistency, layer fit, sources and receivers
// inside the grid, the CFL condition, the dispersion warning, the physics digest, and the
// backend's Setup. Throws Error with the key and the allowed values.
#pragma once

#include <span>

#include "core/wave_backend.hpp"

namespace strata::wave {

struct Resolved {
  Plan plan;
  Setup setup;
};

template <class T>
Resolved resolve(const Config& c, std::span<const T> velocity);

// The digest of the physics: the configuration without steps, outputs and device, with dt
// resolved, plus a hash of the velocity values. Equal digests: a checkpoint can continue.
template <class T>
std::string physics_digest(const Config& c, double dt, std::span<const T> velocity);

}  // namespace strata::wave
