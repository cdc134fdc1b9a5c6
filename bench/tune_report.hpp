// What `strata tune` prints and writes, and the tuning block of every benchmark JSON: which
// shape each kernel family ran and where the choice came from (strata/tuning.hpp).
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "strata/tuning.hpp"

namespace strata::bench {

// A row per candidate, grouped by family: time per launch, rate, the ratio to the shape used
// without measuring, the chosen one marked; refused candidates with the reason.
void print_tuning(std::ostream& os, const tuning::TuneReport& report);
// The same as a JSON document (bench/results/<gpu>-tuning.json), with the shipped row.
nlohmann::json tuning_json(const tuning::TuneReport& report);
// Where this process's shape for `family` came from ("cache", "measured", "shipped",
// "nearest", "policy"); "" before it was chosen. A benchmark uses one device.
std::string choice_source(const std::string& family);

}  // namespace strata::bench
