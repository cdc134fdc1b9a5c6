// What `strata apply` is, for the CLI and Python alike: a stencil applied once or `steps`
// times to a 3D .npy array, written to another, on one process or over the job's ranks
// (mpirun), on the GPU or the CPU. Everything is validated before any work (plan_apply, no
// collective call), the output written atomically (a failed run leaves no file), a result
// with NaN or Inf a failed run unless allowed.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "drivers/report.hpp"
#include "drivers/words.hpp"
#include "strata/boundary.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/stencil.hpp"
#include "strata/steps.hpp"

namespace strata::drivers {

// A step's update as text: "repeat" (u <- A u) or "relax:C" (u <- u + C (A u)). `what` names
// the option or keyword in the message.
StepOptions parse_update(const std::string& text, const std::string& what = "--update");
// The same from a word and a factor (Python's strata.steps(update=, c=)): "repeat", or
// "relax" with a finite c.
StepOptions step_update(const std::string& word, double c, const std::string& what);
// The text of an update, as the report writes it: "u <- A u", "u <- u + 0.1 (A u)".
std::string describe(const StepOptions& update);

struct ApplyRun {
  Stencil stencil = Stencil::laplacian(2);
  Boundary bc;
  std::string in, out, json;           // json: "" writes no report
  std::optional<Precision> precision;  // default: the input's dtype
  Device device = Device::automatic;
  std::string
      grid;  // process grid PXxPYxPZ; "" chooses; given, the distributed path runs on one rank too
  int steps = 1, fuse = 0;  // fuse 0: strata's choice (auto_fuse)
  StepOptions update{StepUpdate::repeat, 0};
  bool allow_nonfinite = false;
  Words words;  // how the caller names what its user gives (the CLI's options by default)
  Clock::time_point start = Clock::now();              // the report's phases run from here
  std::function<void(const std::string&)> on_warning;  // a written non-finite result
};

// A validated run: what plan_apply decided, ready to run (the device started, its memory
// checked). Under mpirun every rank plans, the ranks agree, then every rank runs.
struct ApplyPlan {
  ApplyRun run;
  Device device = Device::cpu;
  Precision precision = Precision::f32;
  Precision file_precision = Precision::f32;  // the input's dtype (--precision may narrow it)
  Extent n;
  bool distributed = false;
  dist::ProcessGrid grid;
  Phases phases;
};

struct ApplyResult {
  std::string where;  // "cuda", or "cpu on 4 ranks (process grid 2x2x1)"
  Extent n;
  Precision precision = Precision::f32;
  int steps = 1, per_pass = 1;
  double compute_ms = 0, gpts_per_step = 0;
  bool root = true;               // this rank speaks for the run
  nlohmann::ordered_json report;  // what --json writes (timing_ms included)
};

// Checks everything before any work (the output paths, the input's header, the precision
// holding the coefficients, the process grid, the memory), binds this rank's GPU and starts
// the device. Throws Error; makes no collective call.
ApplyPlan plan_apply(const ApplyRun& run);
// Runs a plan (collective under mpirun; every rank validated first) and writes its report.
ApplyResult run_apply(ApplyPlan& plan);

}  // namespace strata::drivers
