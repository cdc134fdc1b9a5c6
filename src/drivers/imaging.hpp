// What an imaging run is, for Python (and the verb to come) alike: a wave configuration (the
// grid, the background or migration model, the sources and their wavelets, the receivers, the
// boundaries, the steps) and one shot's data, into the misfit and its gradient, the RTM
// image, or the Born data of a model change (solvers/imaging). One process; the data's rows
// are `strata wave`'s seismogram rows (row 0 is step 0, then one a step: receivers.every = 1).
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strata/device.hpp"
#include "strata/wave.hpp"

namespace strata::drivers {

struct ImagingRun {
  wave::Config config;           // its model is the background / migration model, unless:
  std::vector<double> velocity;  // a dense [z][y][x] model (m/s) to use instead ("" : none)
  std::vector<double> data;      // (steps + 1) x receivers: observed data (gradient) or the
                                 // reflections to migrate (migrate); empty: zeros
  // The data's shape as given (a .npy's, a SEG-Y file's traces and samples, a NumPy array's):
  // (rows, receivers), checked against the configuration; {0, 0}: a flat array, checked by
  // its count only.
  std::array<std::size_t, 2> data_shape{};
  double memory_budget = 0;      // bytes for the forward states the adjoint keeps (0: half
                                 // the memory free where they are kept: host or GPU)
  int checkpoints = 0;           // > 0: this many kept states, whatever the budget
  bool boundary_saving = false;  // instead: each step's ring at the absorbing layers' inner
                                 // edge, the forward field run backward (imaging::GradientOptions)
  double data_dt = 0;  // > 0: the data's sample interval (s), checked against the plan's dt
  // The source-side illumination (imaging::GradientOptions::illumination): false skips its
  // pass at every forward step and leaves ImagingResult::illumination empty, and migrate's
  // compensated image too (its image the same bits).
  bool illumination = true;
  // imaging::GradientOptions::fused_imaging: on the GPU the correlation inside a step (boundary
  // saving: the reversed forward step; checkpointing: the adjoint's step back), false: a pass
  // of its own (the same bits, for comparing costs).
  bool fused_imaging = true;
  // imaging::GradientOptions::reversed_step_updates_layers: with boundary saving the reversed
  // steps update the absorbing layers too (nothing reads them: the same bits, for comparing
  // costs).
  bool reversed_step_updates_layers = false;
  // The predicted data will be written as SEG-Y (`--predicted` ending .sgy): what SEG-Y cannot
  // hold (wave::check_segy) is refused with the plan, before the run.
  bool predicted_segy = false;
};

struct ImagingResult {
  Extent shape;
  Device device = Device::cpu;
  double dt = 0;
  int receivers = 0, rows = 0;                 // the data's shape: rows = steps + 1
  std::vector<wave::Vec3> receiver_positions;  // the plan's, in the data's column order
  double misfit = 0;                           // 1/2 |predicted - data|^2 (gradient)
  std::vector<double> predicted;               // rows x receivers (row 0: step 0, zeros)
  std::vector<double> gradient;                // dJ/dm, m = 1/v^2 (gradient), dense [z][y][x]
  std::vector<double> image, compensated;      // migrate
  std::vector<double> illumination;            // sum over steps of u^2
  int checkpoints = 0;                         // forward states kept
  bool boundary_saving = false;                // the strategy that ran (checkpoint_bytes: a ring)
  bool fused_imaging = false;                  // the correlation ran inside a step
  double checkpoint_bytes = 0;                 // each
  long long forward_steps = 0;                 // run in all
  long long forward_timed_steps = 0;           // of them, those forward_seconds times
  double recomputation = 0;                    // forward steps per step
  // Where the run's time went (s; imaging::Gradient's): the forward steps, the adjoint
  // actions, the kept states' copies, all of it. Over several shots, their sums.
  double forward_seconds = 0, adjoint_seconds = 0, checkpoint_seconds = 0, seconds = 0;
  double setup_seconds = 0,
         finish_seconds = 0;  // of seconds: before the first step, after the last
  std::vector<std::pair<std::string, double>> setup_parts;       // one run's (imaging::Gradient's)
  std::vector<std::pair<std::string, double>> finish_parts;      // one run's (imaging::Gradient's)
  std::vector<std::pair<std::string, double>> step_timeline_ms;  // one run's, where asked
  // The run's cost in forward runs of its shots: seconds over the time the timed forward
  // steps take for steps x shots of them (0 where nothing was timed).
  double cost_in_forward_runs() const;
  struct ShotDone {  // --shots: each shot, in the shots file's order
    std::string name;
    int rank = 0;
    double misfit = 0, seconds = 0;
    long long forward_steps = 0;
  };
  std::vector<ShotDone> shots;
  int ranks = 1;
};

// The time step the run would take: time.dt where the configuration gives it, else the stable
// step of the model's fastest velocity (so one dt for several models: this of the fastest one
// they may have, set as time.dt). Every check the run makes first; nothing is run.
double plan_dt(const ImagingRun& run);
// The misfit of the model's data against run.data and its gradient in m = 1 / v^2.
ImagingResult gradient(const ImagingRun& run);
// Reverse-time migration of run.data (the reflections: the direct wave removed) through the
// model: the image and (run.illumination) its illumination-compensated form.
ImagingResult migrate(const ImagingRun& run);
// The Born data of a change dm (dense [z][y][x], in s^2/m^2) of m = 1 / v^2 about the model:
// rows x receivers, in result.predicted.
ImagingResult born(const ImagingRun& run, std::span<const double> dm);

// Many shots in this process, from arrays (Python's strata.imaging.gradient / migrate with
// shots): `shots` a shots file's JSON text (or its path, with is_path), shot i's run the base
// run with the shot's sources and data[i] (empty: zeros); every shot checked before any work;
// the fields, illuminations and misfits summed in the shots' order from zero, as
// run_imaging_files sums a shots file (the same bits). `predicted` (if given) gets each shot's
// predicted data, in order; `shapes` (if given) each array's (rows, receivers), checked as
// ImagingRun::data_shape. shot_names: the shots' names, the file checked as a run checks it.
std::vector<std::string> shot_names(const ImagingRun& base, const std::string& shots, bool is_path);
ImagingResult image_shots(bool migrate, const ImagingRun& base, const std::string& shots,
                          bool is_path, const std::vector<std::vector<double>>& data,
                          std::vector<std::vector<double>>* predicted = nullptr,
                          const std::vector<std::array<std::size_t, 2>>& shapes = {});
// The Born data of dm for each shot (the base run with the shot's sources), in the shots'
// order; every shot checked before any work.
std::vector<std::vector<double>> born_shots(const ImagingRun& base, const std::string& shots,
                                            bool is_path, std::span<const double> dm);

// `strata migrate` and `strata gradient`: the data and the model read from files, the
// outputs checked before any work and each written whole (.npy, atomically), the report as
// JSON. Data: .npy of (steps + 1, receivers), or SEG-Y (.sgy, .segy) with one trace per
// receiver of steps + 1 samples, as `strata wave` writes them (its sample interval must be
// the configuration's dt to the microsecond). Velocity: .npy of (nz, ny, nx) in m/s.
//
// Many shots (`shots`: a shots file as `strata wave --shots` reads it): the run once per shot
// (the configuration with the shot's sources), `data` the directory `strata wave --shots`
// wrote (DATA/NAME/seismogram.npy, or .sgy where that alone is there); the images,
// illuminations, gradients and misfits summed over the shots in the file's order, so the
// sum has the same bits on any number of ranks. Under MPI shot i runs on rank i % ranks
// and rank 0 writes; every rank checks its shots (data, sources, model) before any work.
// The compensated image of a stack is its image over its illumination. One shot (no
// `shots`) runs in one process: several ranks are refused.
struct ImagingFiles {
  enum class Mode { migrate, gradient } mode = Mode::migrate;
  ImagingRun run;  // its configuration set; velocity and data are read from the paths below
  std::string data, velocity, shots;
  std::string config;  // the configuration file run.config was read from ("": none)
  // Messages name the CLI's options (--data) or, for Python, its keywords (data=):
  // option("--data") gives the one the caller speaks.
  bool keywords = false;
  std::string option(const std::string& cli) const;
  // Called once every check has passed, before any work (the CLI: the ranks agree there).
  std::function<void()> on_checked;
  std::string image, compensated, gradient, predicted, illumination, json;  // "" : not written
  // The report's phases run from here (the CLI: the process's start).
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // Where the wall time went, filled by the run: process_start (to the run's call), read,
  // run (forward and adjoint), write, total (to the report's writing), in seconds.
  std::vector<std::pair<std::string, double>> timing_s;
};
ImagingResult run_imaging_files(ImagingFiles& files);
// The report's fields as JSON text (what --json writes).
std::string imaging_report(const ImagingFiles& files, const ImagingResult& r);

}  // namespace strata::drivers
