// strata info: what this build is and which GPUs it sees.
#include <cstdio>
#include <iostream>
#include <string>

#include "apps/strata/commands.hpp"
#include "strata/device.hpp"
#include "strata/dist.hpp"
#include "strata/tuning.hpp"
#include "strata/wave.hpp"

namespace strata::cli {

namespace {
int g_exit_code = 0;
// Set during static initialisation, before main: the reports' whole-process time.
const std::chrono::steady_clock::time_point g_process_start = std::chrono::steady_clock::now();
}
int exit_code() { return g_exit_code; }
void set_exit_code(int code) { g_exit_code = code; }
std::chrono::steady_clock::time_point process_start() { return g_process_start; }

namespace {
// What a machine without a GPU can do (strata lab alone times GPU kernels; the fft solver
// needs the CPU's FFT, which a build may lack).
std::string cpu_runs(const BuildInfo& b) {
  return std::string("the CPU backend runs every verb but `strata lab`, which needs a GPU") +
         (b.cpu_fft ? "" : "; `poisson --solver fft` needs the CPU FFT too");
}
}  // namespace

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show the build configuration and the CUDA devices visible");
  cmd->callback([] {
    const tuning::Mode mode = tuning::mode();  // a bad STRATA_TUNE is refused before anything
    const BuildInfo& b = build_info();
    std::cout << "strata " << b.version << "\n"
              << "  commit:        " << b.commit << "\n"
              << "  build type:    " << b.build_type << "\n"
              << "  compiler:      " << b.compiler << "\n"
              << "  CUDA backend:  "
              << (b.cuda ? "yes (architectures " + b.cuda_architectures + ")" : std::string("no"))
              << "\n"
              << "  CPU FFT:       "
              << (b.cpu_fft ? std::string("yes (KissFFT: the fft solver runs on the CPU)")
                            : "no (" + cpu_fft_unavailable_reason() + ")")
              << "\n";
    const dist::Transports t = dist::transports();
    std::cout << "  MPI:           " << t.mpi << "\n"
              << "  GPU exchange:  " << t.gpu << "\n";
    const std::string pictures = wave::picture_library();
    std::cout << "  pictures:      "
              << (pictures.empty()
                      ? "plain colour images (built without cairo: Debian/Ubuntu libcairo2-dev); "
                        "python -m strata.plot RUN_DIR draws annotated ones"
                      : "annotated (axes, colour bar, title), drawn with " + pictures)
              << "\n";
    // Launch shapes (strata/tuning.hpp): the mode, the cache file, and per device below.
    const tuning::CacheStatus cache = tuning::cache_status();
    std::cout << "  launch shapes: STRATA_TUNE=" << tuning::to_string(mode) << " ("
              << tuning::families().size() << " tuned GPU kernel families)\n"
              << "  tuning cache:  "
              << (cache.path.empty() ? "none (STRATA_TUNE_CACHE, XDG_CACHE_HOME and HOME are unset)"
                  : !cache.exists    ? cache.path + " (not written yet)"
                  : cache.usable
                      ? cache.path + " (" + std::to_string(cache.entries) + " device entries)"
                      : cache.path + " (ignored)")
              << "\n";
    for (const std::string& note : cache.notes) std::cout << "    " << note << "\n";
    if (!b.cuda) {
      std::cout << "devices: no GPU (built without CUDA); " << cpu_runs(b) << "\n";
      return;
    }
    const auto devs = cuda_devices();
    if (devs.empty()) {
      std::cout << "devices: no GPU (" << cuda_unavailable_reason() << "); " << cpu_runs(b) << "\n";
      return;
    }
    for (const DeviceInfo& d : devs) {
      char line[256];
      std::snprintf(line, sizeof line,
                    "device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB (%.1f free), L2 %.0f MiB\n",
                    d.index, d.name.c_str(), d.cc_major, d.cc_minor, d.multiprocessors,
                    double(d.total_memory) / (1 << 30), double(d.free_memory) / (1 << 30),
                    double(d.l2_bytes) / (1 << 20));
      std::cout << line;
      const tuning::DeviceStatus shapes = tuning::device_status(d.index);
      std::cout << "  launch shapes: "
                << (shapes.cached_families == shapes.families
                        ? "every family's from the cache"
                        : std::to_string(shapes.cached_families) + " of " +
                              std::to_string(shapes.families) +
                              " families from the cache; the others: " + shapes.otherwise)
                << "\n  tuning key:    " << shapes.key << "\n";
    }
  });
}

}  // namespace strata::cli
