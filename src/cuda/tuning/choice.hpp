// What a tuned launcher asks the tuner (tuner.hpp): the shape a family runs on a device. A
// header of its own, free of the cache's JSON, for the .cu files that launch tuned kernels.
#pragma once

#include <string>

namespace strata::tuning {

class DeviceOps;

// The process's choice of shape for `family` on `device` (the current device), measured now
// where the mode says so and `may_measure` allows (not while the caller's stream is being
// captured into a graph). `remembered` is false for a fallback used because measuring was
// not possible now: the next call asks again.
struct Resolved {
  std::string variant;
  bool remembered = true;
};
Resolved resolve(const DeviceOps& ops, int device, const std::string& family, bool may_measure,
                 void* stream);

// Changes whenever a choice already made is replaced (tune, reset): a caller that keeps the
// shapes it resolved asks again.
int generation();

}  // namespace strata::tuning
