// strata migrate and strata gradient: seismic imaging of one shot, or many (--shots, dealt
// over the MPI ranks), on the wave engine (issue 40, docs/imaging.md). A wave configuration
// names the grid, the migration or background model, the sources, receivers and steps; --data
// the shot's recorded data. The CLI parses and prints; the runs are drivers/imaging.hpp's,
// which Python's strata.imaging shares.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "drivers/imaging.hpp"
#include "strata/dist.hpp"
#include "strata/wave.hpp"

namespace strata::cli {

namespace {

struct ImagingArgs {
  std::string config, data, velocity, device, shots;
  std::vector<std::string> sets;
  std::string image, compensated, gradient, predicted, illumination, json;
  double memory_budget = 0, data_dt = 0;
  int checkpoints = 0;
  bool boundary_saving = false;
};

void add_common(CLI::App* cmd, ImagingArgs& a, const char* data_help) {
  cmd->add_option(
         "--config", a.config,
         "the wave configuration (strata wave --print-config): grid, model, sources, receivers "
         "(receivers.every = 1), boundaries, time")
      ->required();
  cmd->add_option("--data", a.data, data_help)->required();
  cmd->add_option("--shots", a.shots,
                  "a shots file (as strata wave --shots reads): the run once per shot, --data the "
                  "directory `strata wave --shots` wrote (NAME/seismogram.npy or .sgy a shot); the "
                  "results summed over the shots in the file's order, the same bits on any number "
                  "of ranks; under mpirun shot i runs on rank i % ranks");
  cmd->add_option(
         "--data-dt", a.data_dt,
         "the data's sample interval in seconds, refused unless it is the run's dt to half a "
         "microsecond (a SEG-Y file carries its own; without time.dt strata chooses dt "
         "from the model's fastest velocity)")
      ->check(number_in(1e-12, 1e6));
  cmd->add_option(
      "--velocity", a.velocity,
      "a model in m/s to use instead of the configuration's: .npy (nz, ny, nx), or a SEG-Y depth "
      "volume (.sgy/.segy: one trace per column, the sample interval the spacing in mm)");
  cmd->add_option("--set", a.sets, "override a configuration key: KEY.PATH=VALUE, repeatable");
  cmd->add_option("--device", a.device, "cpu | cuda (default: the configuration's device)");
  cmd->add_option("--memory-budget", a.memory_budget,
                  "bytes for the forward states the adjoint run keeps, where they are kept (the "
                  "host; on the GPU its own memory; default: half of what is free there); "
                  "the others are recomputed on a binomial checkpointing schedule")
      ->check(number_in(1, 1e18));
  cmd->add_option("--checkpoints", a.checkpoints,
                  "keep this many forward states, whatever the budget")
      ->transform(whole_number_in(1, 1 << 30));
  cmd->add_flag(
      "--boundary-saving", a.boundary_saving,
      "instead of kept states: keep each step's wavefield on the ring at the absorbing "
      "layers' inner edge and run the forward field backward in time (2 forward runs, "
      "a ring a step of memory, kept where the run's states are: host or GPU; the gradient "
      "is zero inside the absorbing layers)");
  cmd->add_option("--illumination", a.illumination,
                  "write the source side's illumination (sum of u^2) as .npy (nz, ny, nx), or "
                  "SEG-Y where PATH ends .sgy or .segy (a depth volume, one trace per column); "
                  "summed only when asked (a pass over the wavefield each step; migrate's "
                  "--compensated asks for it too)");
  cmd->add_option("--json", a.json, "write the report as JSON");
}

drivers::ImagingFiles files_of(const ImagingArgs& a, drivers::ImagingFiles::Mode mode) {
  std::vector<wave::Override> sets;
  for (const std::string& s : a.sets) sets.push_back({s, "--set " + s});
  if (!a.device.empty()) sets.push_back({"device=\"" + a.device + "\"", "--device " + a.device});
  drivers::ImagingFiles f;
  f.mode = mode;
  f.run.config = wave::parse_config_file(a.config, sets);
  f.config = a.config;
  f.run.memory_budget = a.memory_budget;
  f.run.checkpoints = a.checkpoints;
  f.run.boundary_saving = a.boundary_saving;
  f.run.data_dt = a.data_dt;
  f.data = a.data;
  f.velocity = a.velocity;
  f.image = a.image;
  f.compensated = a.compensated;
  f.gradient = a.gradient;
  f.predicted = a.predicted;
  f.illumination = a.illumination;
  f.json = a.json;
  f.shots = a.shots;
  f.start = process_start();
  f.on_checked = [] {
    dist::Job& job = dist::Job::get();
    if (job.size() > 1)
      job.begin();  // every rank checked its shots: from here a failure is its own
  };
  return f;
}

double seconds(const drivers::ImagingFiles& f, const std::string& phase) {
  for (const auto& [name, s] : f.timing_s)
    if (name == phase) return s;
  return 0;
}

void print_cost(const char* verb, const drivers::ImagingFiles& f, const drivers::ImagingResult& r) {
  if (!r.shots.empty())
    std::printf("strata %s: %zu shots on %d rank%s, summed in the shots file's order\n", verb,
                r.shots.size(), r.ranks, r.ranks == 1 ? "" : "s");
  char kept[160];
  if (r.boundary_saving)
    std::snprintf(kept, sizeof kept,
                  "boundary saving, a ring a step (%.3g GB each, %.3g GB in all)",
                  r.checkpoint_bytes / 1e9, r.checkpoint_bytes * double(r.rows) / 1e9);
  else
    std::snprintf(kept, sizeof kept, "%d forward states kept (%.3g GB each)", r.checkpoints,
                  r.checkpoint_bytes / 1e9);
  std::printf(
      "strata %s: %s, %d steps, %d receivers on %s; %s, %lld forward steps (%.2f per step); "
      "wall %.2f s (run %.2f s)\n",
      verb, r.shape.xyz().c_str(), r.rows - 1, r.receivers, to_string(r.device), kept,
      r.forward_steps, r.recomputation, seconds(f, "total"), seconds(f, "run"));
  if (r.forward_seconds > 0)
    std::printf(
        "strata %s: %.2f forward runs' time (forward %.3f s at %.3g Gpts/s, %s %.3f s, "
        "kept states %.3f s)\n",
        verb, r.cost_in_forward_runs(), r.forward_seconds,
        double(r.shape.points()) * double(r.forward_timed_steps) / r.forward_seconds / 1e9,
        r.forward_timed_steps < r.forward_steps && r.boundary_saving
            ? "adjoint beside the reversed steps"
            : "adjoint",
        r.adjoint_seconds, r.checkpoint_seconds);
}

}  // namespace

void add_migrate(CLI::App& app) {
  auto a = std::make_shared<ImagingArgs>();
  auto* mig = app.add_subcommand("migrate",
                                 "Reverse-time migration of one shot (or a stack of several: "
                                 "--shots): its reflections (--data: the "
                                 "recorded data with the direct wave "
                                 "removed, (steps + 1, receivers) .npy or one SEG-Y trace per "
                                 "receiver, as strata wave writes them) "
                                 "back-propagated by the wave scheme's exact adjoint through the "
                                 "configuration's model and correlated "
                                 "at zero lag with the source side's second time difference. The "
                                 "image is the band-limited model "
                                 "perturbation: a velocity step shows as a lobe of each sign "
                                 "around it, the reflector where the "
                                 "image's vertical derivative peaks. docs/imaging.md.");
  add_common(mig, *a,
             "the reflections: .npy (steps + 1, receivers) or .sgy (one trace per receiver)");
  mig->add_option("--image", a->image,
                  "write the image as .npy (nz, ny, nx), or SEG-Y where PATH ends .sgy or .segy (a "
                  "depth volume, one trace per column)")
      ->required();
  mig->add_option("--compensated", a->compensated,
                  "write the image divided by the illumination as .npy (nz, ny, nx), or SEG-Y "
                  "where PATH ends .sgy or .segy (a depth volume, one trace per column); the "
                  "illumination is summed only for it or --illumination (a pass over the "
                  "wavefield each forward step)");
  mig->callback([a] {
    drivers::ImagingFiles f = files_of(*a, drivers::ImagingFiles::Mode::migrate);
    const drivers::ImagingResult r = drivers::run_imaging_files(f);
    if (dist::Job::get().root()) print_cost("migrate", f, r);
  });

  auto g = std::make_shared<ImagingArgs>();
  auto* grad = app.add_subcommand(
      "gradient",
      "The misfit of one shot (or of several, summed: --shots) and its gradient in m = 1/v^2. The "
      "misfit is 1/2 |predicted - "
      "observed|^2; the gradient, with respect to the squared slowness at every point, is the "
      "exact "
      "gradient of the discrete misfit (the wave scheme's adjoint, binomial checkpointing): the "
      "first step of full-waveform inversion. docs/imaging.md.");
  add_common(grad, *g,
             "the observed data: .npy (steps + 1, receivers) or .sgy (one trace per receiver)");
  grad->add_option("--gradient", g->gradient,
                   "write dJ/dm as .npy (nz, ny, nx), or SEG-Y where PATH ends .sgy or .segy (a "
                   "depth volume, one trace per column)")
      ->required();
  grad->add_option("--predicted", g->predicted,
                   "write the model's data as .npy (steps + 1, receivers), or SEG-Y where PATH "
                   "ends .sgy or .segy (one trace per receiver, float32 samples every dt from "
                   "t = 0, as strata wave's seismogram.sgy: --data reads it back)");
  grad->callback([g] {
    drivers::ImagingFiles f = files_of(*g, drivers::ImagingFiles::Mode::gradient);
    const drivers::ImagingResult r = drivers::run_imaging_files(f);
    if (!dist::Job::get().root()) return;
    std::printf("strata gradient: misfit %.6e\n", r.misfit);
    print_cost("gradient", f, r);
  });
}

}  // namespace strata::cli
