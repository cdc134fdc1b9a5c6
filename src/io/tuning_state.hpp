// The launch shapes this process's GPU kernels took, as JSON, for every report that says so
// (a run's --json, the benchmark's files): {"mode", "cache", "choices": [{device, family,
// variant, source, detail}]} (strata/tuning.hpp).
#pragma once

#include <nlohmann/json.hpp>

namespace strata::io {

nlohmann::json tuning_state();

}  // namespace strata::io
