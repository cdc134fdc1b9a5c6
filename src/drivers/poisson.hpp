// What `strata poisson` is, for the CLI and Python alike: -Lap(u) = f solved on a box, the
// right-hand side manufactured (with its known solution, the error reported), random or
// read from a .npy file, on one process or over the job's ranks (mpirun), on the GPU or the
// CPU; the solution written atomically where asked, and the report.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "drivers/report.hpp"
#include "drivers/words.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/manufactured.hpp"
#include "strata/poisson.hpp"

namespace strata::drivers {

struct PoissonRun {
  PoissonOptions options;  // its on_iteration and on_warning are the caller's progress
  Extent n;                // {0,0,0}: the shape of the rhs file
  Precision precision = Precision::f32;
  std::string rhs = "manufactured";  // manufactured | random | FILE.npy
  std::string out, json;             // "" writes none
  Device device = Device::automatic;
  std::string grid;  // process grid PXxPYxPZ; "" chooses; given, the distributed solver runs on one
                     // rank too
  Words words;       // how the caller names what its user gives (the CLI's options by default)
  Clock::time_point start = Clock::now();  // the report's phases run from here
  // Called by the rank that speaks for the run just before the solve, with what is solved
  // where: "fd7 dirichlet 255x255x255 on cuda, mgcg, f64, h = 0.00390625".
  std::function<void(const std::string&)> on_start;
};

struct PoissonPlan {
  PoissonRun run;
  Device device = Device::cpu;
  bool distributed = false;
  dist::ProcessGrid grid;
  Phases phases;
};

struct PoissonResult {
  PoissonReport report;
  double h = 0;
  std::optional<poisson::ErrorNorms> error;  // against the manufactured solution
  bool root = true;                          // this rank speaks for the run
  nlohmann::json json;                       // what --json writes (timing_ms included)
};

// Checks everything before any work (outputs, the rhs file's header and shape, the options,
// the process grid, the memory), binds this rank's GPU and starts the device. Throws Error;
// makes no collective call.
PoissonPlan plan_poisson(const PoissonRun& run);
// Solves (collective under mpirun; every rank validated first), writes the solution and the
// report. `phases` gets setup, solve, solver_other, error and output.
PoissonResult run_poisson(PoissonPlan& plan);

}  // namespace strata::drivers
