// strata wave: acoustic wave propagation from a JSON configuration plus command-line
// overrides. Flags are turned into overrides so that every value goes through the one
// validating parser; the run driver (wave::run) writes nothing unless everything checks out.
// --shots runs the configuration once per shot, the shots dealt over the MPI ranks.
#include <unistd.h>

#include <csignal>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "apps/strata/signals.hpp"
#include "strata/dist.hpp"
#include "strata/wave.hpp"

namespace strata::cli {

namespace {

struct WaveArgs {
  std::string config, out_dir, restart, device, precision, progress = "auto", dt, shots, grid;
  std::vector<std::string> sets;
  int steps = -1, order = -1;
  double progress_every = 30;
  bool print_config = false, quiet = false, overwrite = false;
};

// A flag's text as a JSON string for an override. Paths are recorded in config.json, and
// JSON text is UTF-8: a name that is not is refused here, with the flag that gave it.
std::string quoted(const std::string& flag, const std::string& value) {
  const nlohmann::json j(value);
  try {
    return j.dump();
  } catch (const nlohmann::json::exception&) {
    throw Error(flag + " '" + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                "' is not valid UTF-8 text; strata records it in config.json, which is UTF-8 JSON: use a UTF-8 name");
  }
}

// Progress on stderr: a line rewritten in place on a terminal; elsewhere (a batch log, a
// pipe) one plain line every `every` seconds, so a log shows where a run is.
// `label` starts the line ("strata wave", or with the shot it is about).
void show_progress(const wave::Progress& p, bool terminal, const std::string& label) {
  const std::string line = label + ": " + wave::to_text(p);
  if (terminal) std::fprintf(stderr, "\r%s   %s", line.c_str(), p.final ? "\n" : "");
  else std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

// Progress, warnings and the cancel request of one run; `label` starts each line printed.
// `alone`: this process runs the whole grid (a shot); otherwise, under mpirun, the ranks
// share it and rank 0 alone prints.
wave::RunOptions run_options(const WaveArgs& a, const std::string& label, bool alone) {
  wave::RunOptions opt;
  opt.overwrite = a.overwrite;
  opt.config_file = a.config;  // --overwrite leaves it (a previous run's config.json)
  opt.alone = alone;
  opt.grid = a.grid;
  const bool speaks = alone || dist::Job::get().root();
  if (a.progress != "off" && speaks) {
    const bool terminal = ::isatty(2);
    opt.progress_interval_s = terminal ? 0.5 : a.progress_every;
    opt.on_progress = [terminal, label](const wave::Progress& p) { show_progress(p, terminal, label); };
  }
  if (speaks)
    opt.on_warning = [label](const std::string& w) { std::fprintf(stderr, "%s: warning: %s\n", label.c_str(), w.c_str()); };
  opt.cancelled = [] { return interrupted() != 0; };
  return opt;
}

// --shots: the configuration once per shot, dealt over the MPI ranks by the driver
// (wave::run_shots); here the shots' progress, their lines on stdout and the signals. A
// signal stops each rank's current shot (its files are not written, as for one run), and no
// manifest is written.
void run_shots(const wave::Config& c, const WaveArgs& a) {
  const std::vector<wave::Shot> shots = wave::parse_shots_file(a.shots, c);
  const auto label = [&](std::size_t i, const std::string& where) {
    return "strata wave: shot " + shots[i].name + " (" + where + ")";
  };
  wave::ShotsOptions opt;
  opt.overwrite = a.overwrite;
  opt.inputs = {{"--config", a.config}, {"--shots", a.shots}};  // --overwrite leaves them
  opt.run_options = [&](std::size_t i, const std::string& where) { return run_options(a, label(i, where), true); };
  opt.on_shot = [&](const wave::ShotResult& r, const std::string& where) {
    if (!a.quiet)
      std::printf("%s: %d steps, wall %.3f s, stepping %.3f s, %.4g Gpts/s, %s -> %s\n", label(r.index, where).c_str(),
                  r.report.steps_run, r.report.wall_s, r.report.compute_s, r.report.gpts_per_s,
                  to_string(r.report.device), wave::shot_config(c, shots[r.index]).out_dir.c_str());
    std::fflush(stdout);
  };
  opt.stop = [] { return interrupted(); };
  opt.on_running = [](bool on) { set_cooperative(on); };
  const wave::ShotsReport r = wave::run_shots(c, shots, opt);
  if (r.stopped != 0) {
    if (r.interrupted)
      std::fprintf(stderr, "%s\n",
                   (label(*r.interrupted, r.interrupted_where) + ": stopped by " + signal_name(interrupted()) + ": " +
                    r.interrupted_why).c_str());
    if (dist::Job::get().root())
      std::fprintf(stderr, "strata wave: stopped by %s before every shot was done: no manifest written; the shots "
                           "that finished are complete in %s\n", signal_name(r.stopped), c.out_dir.c_str());
    set_exit_code(128 + r.stopped);
    return;
  }
  if (!r.manifest.empty() && !a.quiet)
    std::printf("strata wave: %zu shot%s on %d rank%s in %.3f s; wrote %s\n", r.shots, r.shots == 1 ? "" : "s",
                r.ranks, r.ranks == 1 ? "" : "s", r.wall_s, r.manifest.c_str());
}

}  // namespace

void add_wave(CLI::App& app) {
  auto a = std::make_shared<WaveArgs>();
  auto* cmd = app.add_subcommand(
      "wave",
      "Acoustic wave propagation u_tt = v(x)^2 Lap(u) + sources: leapfrog in time, central differences of order "
      "2/4/6/8 in space; Ricker sources at off-grid points; point, line and plane receivers (seismogram.npy, time x "
      "receiver); CPML absorbing layers, free surface, rigid and periodic faces; snapshots (.npy, .vti, .png); "
      "atomic checkpoints and bit-identical --restart.\n"
      "Pictures (model.png, seismogram.png, snapshots/u_STEP.png) have axes in metres (offset "
      "from the source and time for the seismogram), a colour bar and a title where strata was "
      "built with cairo (`strata info` says); `python -m strata.plot OUT_DIR` draws them with "
      "matplotlib into OUT_DIR/plots, which --overwrite removes with the run's other files.\n"
      "The configuration is JSON (comments allowed). `strata wave --print-config > wave.json` writes a complete, "
      "commented one with every key at its default: grid (shape, spacing), model (constant | layered | npy), time "
      "(steps, dt, cfl_safety), scheme (order, precision), sources, receivers (every, points, lines, planes), "
      "boundary (xmin..zmax: pml | free | rigid | periodic; pml width, reflection, power, alpha), output (dir, "
      "snapshots, png, seismogram_png, segy, model_png, checkpoint_every), device. Unknown keys are "
      "errors. A time step above the stability limit is an error that prints the limit; dt is "
      "chosen as cfl_safety times the limit when not given.\n"
      "Many shots: --shots FILE runs the configuration once per shot (one model, a list of source positions), "
      "each into OUT_DIR/NAME with every output of a plain run, then writes OUT_DIR/manifest.json; under mpirun "
      "shot i runs on rank i % ranks, one GPU per rank (`mpirun -np 4 strata wave --config c.json --shots "
      "shots.json`).\n"
      "Several GPUs, one model: under mpirun (one rank per GPU) the grid is split into boxes, one per rank, "
      "whose ghost layers are exchanged after every step (CUDA IPC or NCCL between GPUs, MPI between CPU processes): "
      "`mpirun -np 2 strata wave --config c.json`. The results are the same bits as one process; snapshots are "
      "one file each, written by every rank; each rank writes its own checkpoint (OUT_DIR/checkpoint.strata and "
      "checkpoint.strata.rankR), and --restart continues on the same ranks and --grid.");
  cmd->add_option("--config", a->config, "JSON configuration file");
  cmd->add_option("--set", a->sets, "override a key: KEY.PATH=VALUE (JSON, or a bare string not opening with [ or {), repeatable, "
                                    "e.g. --set boundary.zmin=rigid --set sources.0.frequency=12");
  cmd->add_option("--steps", a->steps, "time.steps")->transform(whole_number_in(0, 100000000));
  cmd->add_option("--dt", a->dt, "time.dt in seconds, or 'auto'");
  cmd->add_option("--order", a->order, "scheme.order: 2, 4, 6 or 8")->transform(whole_number_in(2, 8));
  cmd->add_option("--precision", a->precision, "scheme.precision: f32 | f64");
  cmd->add_option("--device", a->device, "device: cpu | cuda | auto");
  cmd->add_option("--out-dir", a->out_dir, "output.dir");
  cmd->add_option("--restart", a->restart,
                  "continue from a checkpoint (default OUT_DIR/checkpoint.strata); its configuration digest must "
                  "match (grid, model, dt, scheme, sources, receivers, boundaries); time.steps may grow")
      ->expected(0, 1);
  cmd->add_option("--shots", a->shots,
                  "run once per shot of this JSON list, each into OUT_DIR/NAME, and write OUT_DIR/manifest.json: "
                  "[{\"name\": \"s1\", \"position\": [x, y, z]}, ...] moves the configuration's one source "
                  "(its wavelet kept); {\"sources\": [...]} replaces the sources (the configuration's keys); name "
                  "optional (shot0000, ...). Under mpirun shot i runs on rank i % ranks. Not with --restart");
  cmd->add_option("--grid", a->grid,
                  "under mpirun: the process grid PXxPYxPZ splitting the grid over the ranks (default: the least "
                  "weighted halo surface, x cuts 4, y 2.5, z 1, with boxes as thick as the absorbing layers). Given on one rank (1x1x1), it runs "
                  "the distributed path there, to compare with the one-process run");
  cmd->add_flag("--overwrite", a->overwrite,
                "replace the files of a previous run in the output directory (a run otherwise needs an empty "
                "directory, or --restart to continue the run whose files are there)");
  cmd->add_option("--progress", a->progress,
                  "progress on stderr: auto or on (a line updated in place on a terminal, otherwise a plain line "
                  "every --progress-every seconds) | off")
      ->capture_default_str();
  cmd->add_option("--progress-every", a->progress_every,
                  "seconds between progress lines when stderr is not a terminal (a batch log)")
      ->capture_default_str()->check(number_in(0.1, 86400));
  cmd->add_flag("--quiet", a->quiet, "no report on stdout (report.json is still written)");
  cmd->add_flag("--print-config", a->print_config, "print the complete commented default configuration and exit");
  auto* restart_opt = cmd->get_option("--restart");
  cmd->callback([a, restart_opt] {
    if (a->print_config) {
      std::cout << wave::default_config_text();
      return;
    }
    if (a->config.empty())
      throw Error("strata wave needs --config FILE (`strata wave --print-config > wave.json` writes a complete, "
                  "commented example to start from)");
    if (a->progress != "auto" && a->progress != "on" && a->progress != "off")
      throw Error("--progress '" + a->progress + "': allowed auto, on, off");
    // Each override named by what gave it, so that a bad value is blamed on it, not the file.
    std::vector<wave::Override> sets;
    for (const std::string& s : a->sets) sets.push_back({s, "--set " + s});
    const auto flag = [&](const char* name, const std::string& given, const std::string& text) {
      sets.push_back({text, std::string(name) + " " + given});
    };
    const std::string steps = std::to_string(a->steps), order = std::to_string(a->order);
    if (a->steps >= 0) flag("--steps", steps, "time.steps=" + steps);
    if (!a->dt.empty()) flag("--dt", a->dt, "time.dt=" + (a->dt == "auto" ? "null" : a->dt));
    if (a->order >= 0) flag("--order", order, "scheme.order=" + order);
    if (!a->precision.empty())
      flag("--precision", a->precision, "scheme.precision=" + quoted("--precision", a->precision));
    if (!a->device.empty()) flag("--device", a->device, "device=" + quoted("--device", a->device));
    if (!a->out_dir.empty())
      flag("--out-dir", a->out_dir, "output.dir=" + quoted("--out-dir", a->out_dir));
    const wave::Config c = wave::parse_config_file(a->config, sets);
    if (!a->grid.empty() && !a->shots.empty())
      throw Error("--grid splits one run's grid over the ranks; with --shots each rank runs whole shots");
    if (!a->shots.empty()) {
      if (restart_opt->count() > 0)
        throw Error("--restart continues one run, and with --shots every shot is a run of its own (in "
                    "OUT_DIR/NAME): continue one shot alone with `strata wave --config OUT_DIR/NAME/config.json "
                    "--restart`, or rerun the shots with --overwrite");
      return run_shots(c, *a);
    }
    wave::RunOptions opt = run_options(*a, "strata wave", false);
    opt.process_start = process_start();  // the report's phases from the process's start
    if (restart_opt->count() > 0)
      opt.restart = a->restart.empty() ? c.out_dir + "/checkpoint.strata" : a->restart;
    set_cooperative(true);
    try {
      const wave::Report r = wave::run(c, opt);
      set_cooperative(false);
      if (!a->quiet && dist::Job::get().root()) std::fputs(wave::to_text(r).c_str(), stdout);
    } catch (const wave::Interrupted& e) {
      set_cooperative(false);
      // Over several ranks rank 0's signal stopped them all, at one step: it alone says so
      // (another rank may have seen no signal at all).
      const int sig = interrupted() ? interrupted() : SIGINT;
      if (dist::Job::get().root()) std::fprintf(stderr, "strata wave: stopped by %s: %s\n", signal_name(sig), e.what());
      set_exit_code(128 + sig);
    } catch (...) {
      set_cooperative(false);
      throw;
    }
  });
}

}  // namespace strata::cli
