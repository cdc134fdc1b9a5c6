// strata: the command-line tool. One verb per job; each verb lives in its own file.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/strata/commands.hpp"
#include "apps/strata/options.hpp"
#include "apps/strata/signals.hpp"
#include "drivers/outputs.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace {

// The job's outcome is decided and MPI ends. A signal from here on is mpirun stopping the
// ranks still on their way out (it does once any rank exits non-zero): nothing to say.
void finish_job() {
  strata::cli::set_speaker(false, true);
  strata::dist::Job::get().finish();
}

// Under mpirun every rank runs main. A verb validates its arguments on every rank, then
// calls Job::begin, where the ranks agree: when one failed, the first failing rank alone
// prints why and every rank exits 1. After begin a failure is a rank's own (a file, a GPU):
// it prints with its rank and ends the whole job, its unfinished files removed.
int fail(const std::string& what, int code = 1) {
  using strata::dist::Job;
  Job& job = Job::get();
  if (job.size() == 1) {
    std::cerr << "strata: " << what << "\n";
    return code;
  }
  if (!job.begun()) {
    const int first = job.first_failed(true);
    if (first == job.rank()) std::cerr << "strata: " << what << "\n";
    finish_job();
    return code;
  }
  std::cerr << "strata: rank " << job.rank() << " of " << job.size() << " on " << job.host() << ": "
            << what << "\n(ending all ranks)\n";
  strata::drivers::remove_unfinished_outputs();
  job.abort(code);
}

// Whether a configuration file says "device": "cpu" (a glance, not a parse: the run reads
// it properly; a file that cannot be read here says nothing).
bool config_names_cpu(const std::string& path) {
  std::ifstream in(path);
  std::string text(1 << 20, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  static const std::regex cpu(R"re("device"\s*:\s*"cpu")re");
  return std::regex_search(text, cpu);
}

// Whether this command line computes on a GPU: a verb that does, without --help, --version or
// the CPU named (--device cpu, --set device="cpu", or a --config file's "device": "cpu").
// Its GPU then starts while MPI starts and the options are read. STRATA_EARLY_START=off
// starts the GPU where the command first needs it instead.
bool computes_on_gpu(int argc, char** argv) {
  static const std::set<std::string> verbs{"apply",   "bench",   "demo", "gradient", "lab",
                                           "migrate", "poisson", "tune", "wave"};
  if (const char* e = std::getenv("STRATA_EARLY_START"); e && std::string(e) == "off") return false;
  if (argc < 2 || !verbs.count(argv[1])) return false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i], next = i + 1 < argc ? argv[i + 1] : "";
    if (a == "-h" || a == "--help" || a == "--version" || a == "--device=cpu" ||
        (a == "--device" && next == "cpu") ||
        (a == "--set" && (next == "device=cpu" || next == "device=\"cpu\"")) ||
        (a == "--config" && config_names_cpu(next)) ||
        (a.rfind("--config=", 0) == 0 && config_names_cpu(a.substr(9))))
      return false;
  }
  return true;
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  const int code = run(argc, argv);
  strata::dist::Job::join_gpu_start();  // before CUDA's own teardown at exit
  return code;
}

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "strata: stencils and solvers on structured 3D grids, on the GPU at the speed "
      "of its memory (CPU reference backend when there is no GPU)"};
  app.require_subcommand(1);
  const auto& b = strata::build_info();
  app.set_version_flag("--version", "strata " + b.version + " (commit " + b.commit + ", " +
                                        (b.cuda ? "CUDA sm_" + b.cuda_architectures : "CPU only") +
                                        ")");
  strata::cli::install_signal_handlers();
  try {
    // First, before anything starts CUDA: a run starts only the GPU it uses; `strata info`
    // lists them all.
    using Gpus = strata::dist::Job::Gpus;
    const bool info = argc > 1 && std::string(argv[1]) == "info";
    const strata::dist::Job& job = strata::dist::Job::start(
        argc, argv, info ? Gpus::all : Gpus::mine, computes_on_gpu(argc, argv));
    strata::cli::set_speaker(job.root(), job.size() > 1);
  } catch (const strata::Error& e) {
    std::cerr << "strata: error: " << e.what() << "\n";
    return 1;
  }
  try {
    // Registration is inside the try: a CLI11 release that rejects an option name must
    // give a message, never std::terminate (CLI11 2.4 refused `--h` beside `-h`).
    strata::cli::add_info(app);
    strata::cli::add_apply(app);
    strata::cli::add_bench(app);
    strata::cli::add_demo(app);
    strata::cli::add_lab(app);
    strata::cli::add_migrate(app);
    strata::cli::add_poisson(app);
    strata::cli::add_tune(app);
    strata::cli::add_wave(app);
    // What tuning did (a family measured at first use, a cache file ignored) is said once, by
    // the rank that speaks for the job.
    if (strata::dist::Job::get().root())
      strata::tuning::set_note_handler(
          [](const std::string& note) { std::cerr << "strata: " << note << "\n"; });
    // Bare `strata` lists the verbs; a verb or option that does not exist names the nearest.
    strata::cli::check_command_line(app, argc, argv);
    app.parse(argc, argv);
    // A verb that never reached Job::begin still meets the ranks that failed before it.
    auto& job = strata::dist::Job::get();
    if (job.size() > 1 && !job.begun()) job.begin();
  } catch (const strata::dist::AgreedError& e) {
    auto& job = strata::dist::Job::get();
    if (job.root()) std::cerr << "strata: error: " << e.what() << "\n";
    finish_job();
    return 1;
  } catch (const strata::dist::PeerFailed&) {
    finish_job();
    return 1;
  } catch (const CLI::ParseError& e) {
    auto& job = strata::dist::Job::get();
    if (job.size() > 1 && !job.begun()) {
      // Every rank parsed the same command line: rank 0 alone prints (help or error).
      job.first_failed(true);
      const int code = job.rank() == 0 ? app.exit(e) : e.get_exit_code();
      finish_job();
      return code;
    }
    return app.exit(e);
  } catch (const CLI::ConstructionError& e) {
    std::cerr << "strata: internal error registering the command-line options (CLI11 " CLI11_VERSION
                 "): "
              << e.what() << "\n";
    return 2;
  } catch (const strata::Error& e) {
    return fail(std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    return fail(std::string("unexpected error: ") + e.what(), 2);
  }
  finish_job();
  return strata::cli::exit_code();
}

}  // namespace
