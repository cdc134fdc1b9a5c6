// From a parsed configuration and its velocity model to everything a run is checked
// against before any step or file: boundary consistency, layer fit, sources and receivers
// inside the grid, the CFL condition, the dispersion warning, the physics digest, and the
// backend's Setup. Throws Error with the key and the allowed values.
// Owns every check that needs the whole configuration; uses numerics, geometry, cpml,
// io/digest and the device and host-memory queries; reads no file and allocates no field.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "backend/wave.hpp"
#include "io/digest.hpp"

namespace strata::wave {

struct Resolved {
  Plan plan;
  Setup setup;
};

// `velocity`: the model's values (VelocityModel::values()).
template <class T>
Resolved resolve(const Config& c, std::span<const T> velocity);
// The same from the model's extremes, add_values adding its values to the physics digest (as
// Digest::add_bytes of the whole array): for a model no one process holds.
template <class T>
Resolved resolve(const Config& c, double v_min, double v_max,
                 const std::function<void(io::Digest&)>& add_values);

// The checks of the sources alone, as resolve makes them (the first bad source is named
// "sources.I"): each position among the grid points, and each wavelet one the scheme can
// represent with time step dt (below Nyquist, its peak within the run, an injection the
// precision holds). Shots (src/drivers/wave/shots.cpp) check each shot's sources with them.
void check_source_positions(const Config& c);
void check_source_parameters(const Config& c, double dt);

// A seismogram of the plan written as SEG-Y (output.segy, or `what` another output that is):
// refused, naming `what` and offering the dt or receivers.every that fits or `instead`, where
// SEG-Y cannot hold its interval (whole microseconds, 1 to 65535), its samples per trace or
// the grid's coordinates.
void check_segy(const Config& c, const Plan& p, const std::string& what,
                const std::string& instead);

// "cpu" or "cuda" for the configuration's device ("auto": cuda when a GPU can be used).
// Throws Error for "cuda" without a usable GPU.
Device run_device(const Config& c);

// The host memory a run holds at its peak, estimated from the configuration alone (before
// anything is read or allocated): on the CPU the fields with their ghosts, (v dt/h)^2, the
// CPML memory, the traces and the receivers' taps; on either device the staging copies
// (the velocity model while setting up; a dense copy of the whole state and the traces
// for a snapshot, a checkpoint, a restart or the final outputs). `parts` lists them.
struct MemoryEstimate {
  double bytes = 0;
  std::string parts;
};
MemoryEstimate host_memory_estimate(const Config& c, Device device);
// Throws Error naming the estimate, its parts and the memory available when it does not fit.
void require_host_memory(const Config& c, Device device);

// The digest of the physics: the configuration without steps, outputs and device, with dt
// resolved, plus a hash of the velocity values (one per z plane for constant and layered
// models, every point's for a .npy model). Equal digests: a checkpoint can continue.
template <class T>
std::string physics_digest(const Config& c, double dt, std::span<const T> velocity);
std::string physics_digest(const Config& c, double dt,
                           const std::function<void(io::Digest&)>& add_values);

}  // namespace strata::wave
