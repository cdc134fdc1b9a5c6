// The tuner: which candidate shape a family runs on a device, and how candidates are timed.
// Plain C++ over two interfaces a device backend implements (DeviceOps, CandidateTimer), so
// the rules (modes, cache, shipped rows, timing rounds, the time bound, the margin) are
// tested on any machine with fakes; src/cuda/stencil/tuning.cu implements them on the GPU.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/tuning/cache.hpp"
#include "cuda/tuning/choice.hpp"
#include "cuda/tuning/families.hpp"
#include "strata/tuning.hpp"

namespace strata::tuning {

// Times one family's candidates (indices into FamilySpec::variants) on one grid.
class CandidateTimer {
 public:
  virtual ~CandidateTimer() = default;
  virtual Extent shape() const = 0;  // the timing grid
  // Runs candidates i and `reference` on a small grid of odd sizes and compares the outputs
  // bit for bit: "" when equal, else why not (other bits, or i cannot run on this device).
  virtual std::string check_bits(int i, int reference) = 0;
  // Launches candidate i `launches` times back to back on the timing grid; their total time
  // in ms, waited for.
  virtual double time_ms(int i, int launches) = 0;
};

// What the tuner needs from a device backend.
class DeviceOps {
 public:
  virtual ~DeviceOps() = default;
  virtual DeviceKey key(int device) const = 0;
  // A timer for `family` on the current device with fields of `shape`, after the work queued
  // on `stream` has finished. Throws Error when the fields do not fit in free memory.
  virtual std::unique_ptr<CandidateTimer> timer(const FamilySpec& family, Extent shape,
                                                void* stream) const = 0;
};

// How long a family's measurement may take, and how it decides.
struct Budget {
  double seconds = 1.0;  // timing rounds stop once the family has taken this long ...
  int min_rounds = 3;    // ... but not before this many rounds over every candidate
  int max_rounds = 7;
  double batch_ms = 8;            // each timed batch of launches lasts about this long
  double margin = 0.01;           // a candidate replaces the incumbent only when this much faster
  std::function<double()> clock;  // seconds; a steady clock when empty
};

// Checks every candidate's bits against the incumbent's, then times the usable ones in
// interleaved rounds (a batch of launches each), and picks the fastest median unless the
// incumbent is within the margin of it. Errors from the incumbent propagate.
FamilyTiming time_family(const FamilySpec& family, int incumbent, CandidateTimer& timer,
                         const Budget& budget);

// A family's shape on a device name without measuring: the shipped row of that model, the
// row of the nearest model, or the policy.
struct Fallback {
  std::string variant, source, detail;
  bool measured_here = false;  // a shipped row measured on this very model
};
Fallback fallback_for(const FamilySpec& family, std::string_view device_name);

// What a mode does with a family: use a shape now, or measure the candidates.
struct Decision {
  bool measure = false;
  std::string variant, source, detail;  // when !measure
};
Decision decide(Mode mode, const FamilyRecord* cached, const Fallback& fallback);

// The implementations behind tuning::tune and tuning::device_status for a backend.
TuneReport tune(const DeviceOps& ops, int device, const TuneOptions& options,
                const std::function<void(const FamilyTiming&)>& on_family);
DeviceStatus device_status(const DeviceOps& ops, int device);

// Forgets every choice, loaded cache and note said, and set_mode's mode (as in a new
// process): for tests.
void reset();

}  // namespace strata::tuning
