// strata wave: acoustic wave propagation from a JSON configuration plus command-line
// overrides. Flags are turned into overrides so that every value goes through the one
// validating parser; the run driver (wave::run) writes nothing unless everything checks out.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "apps/strata/signals.hpp"
#include "strata/wave.hpp"

namespace strata::cli {

namespace {

struct WaveArgs {
  std::string config, out_dir, restart, device, precision, progress = "auto", dt;
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

std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = std::lround(s);
  char b[32];
  if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}

// Progress on stderr: a line rewritten in place on a terminal; elsewhere (a batch log, a
// pipe) one plain line every `every` seconds, so a log shows where a run is.
void show_progress(const wave::Progress& p, bool terminal) {
  const int total = p.last_step;
  char line[256];
  std::snprintf(line, sizeof line, "strata wave: step %d/%d  %5.1f%%  %.3g Gpts/s  elapsed %s  ETA %s", p.step, total,
                total ? 100.0 * p.step / total : 100.0, p.gpts_per_s, clock_text(p.elapsed_s).c_str(),
                clock_text(p.eta_s).c_str());
  if (terminal) std::fprintf(stderr, "\r%s   %s", line, p.final ? "\n" : "");
  else std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
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
      "The configuration is JSON (comments allowed). `strata wave --print-config > wave.json` writes a complete, "
      "commented one with every key at its default: grid (shape, spacing), model (constant | layered | npy), time "
      "(steps, dt, cfl_safety), scheme (order, precision), sources, receivers (every, points, lines, planes), "
      "boundary (xmin..zmax: pml | free | rigid | periodic; pml width, reflection, power, alpha), output (dir, "
      "snapshots, png, seismogram_png, checkpoint_every), device. Unknown keys are errors. A time step above the "
      "stability limit is an error that prints the limit; dt is chosen as cfl_safety times the limit when not "
      "given.");
  cmd->add_option("--config", a->config, "JSON configuration file");
  cmd->add_option("--set", a->sets, "override a key: KEY.PATH=VALUE (JSON or a bare string), repeatable, "
                                    "e.g. --set boundary.zmin=rigid --set sources.0.frequency=12");
  cmd->add_option("--steps", a->steps, "time.steps")->check(whole_number_in(0, 100000000));
  cmd->add_option("--dt", a->dt, "time.dt in seconds, or 'auto'");
  cmd->add_option("--order", a->order, "scheme.order: 2, 4, 6 or 8")->check(whole_number_in(2, 8));
  cmd->add_option("--precision", a->precision, "scheme.precision: f32 | f64");
  cmd->add_option("--device", a->device, "device: cpu | cuda | auto");
  cmd->add_option("--out-dir", a->out_dir, "output.dir");
  cmd->add_option("--restart", a->restart,
                  "continue from a checkpoint (default OUT_DIR/checkpoint.strata); its configuration digest must "
                  "match (grid, model, dt, scheme, sources, receivers, boundaries); time.steps may grow")
      ->expected(0, 1);
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
    std::vector<std::string> sets = a->sets;
    if (a->steps >= 0) sets.push_back("time.steps=" + std::to_string(a->steps));
    if (!a->dt.empty()) sets.push_back("time.dt=" + (a->dt == "auto" ? std::string("null") : a->dt));
    if (a->order >= 0) sets.push_back("scheme.order=" + std::to_string(a->order));
    if (!a->precision.empty()) sets.push_back("scheme.precision=" + quoted("--precision", a->precision));
    if (!a->device.empty()) sets.push_back("device=" + quoted("--device", a->device));
    if (!a->out_dir.empty()) sets.push_back("output.dir=" + quoted("--out-dir", a->out_dir));
    const wave::Config c = wave::parse_config_file(a->config, sets);
    wave::RunOptions opt;
    if (restart_opt->count() > 0)
      opt.restart = a->restart.empty() ? c.out_dir + "/checkpoint.strata" : a->restart;
    opt.overwrite = a->overwrite;
    if (a->progress != "off") {
      const bool terminal = ::isatty(2);
      opt.progress_interval_s = terminal ? 0.5 : a->progress_every;
      opt.on_progress = [terminal](const wave::Progress& p) { show_progress(p, terminal); };
    }
    opt.on_warning = [](const std::string& w) { std::fprintf(stderr, "strata wave: warning: %s\n", w.c_str()); };
    opt.cancelled = [] { return interrupted() != 0; };
    set_cooperative(true);
    try {
      const wave::Report r = wave::run(c, opt);
      set_cooperative(false);
      if (!a->quiet) std::fputs(wave::to_text(r).c_str(), stdout);
    } catch (const wave::Interrupted& e) {
      set_cooperative(false);
      std::fprintf(stderr, "strata wave: stopped by %s: %s\n", signal_name(interrupted()), e.what());
      set_exit_code(128 + interrupted());
    } catch (...) {
      set_cooperative(false);
      throw;
    }
  });
}

}  // namespace strata::cli
