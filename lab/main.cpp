// strata-lab: the seed documents' experiments (docs/lab.md), each a ladder of kernel variants
// checked against a CPU reference and timed on this GPU (lab/lab.hpp); a table, --json,
// --plot. Its own program, so that the product binary `strata` links neither cuBLAS nor the
// ladders; it refuses bad options as strata does (apps/strata/options.hpp).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include <CLI/CLI.hpp>

#include "apps/strata/options.hpp"
#include "apps/strata/signals.hpp"
#include "lab/lab.hpp"
#include "lab/plot_py.hpp"
#include "drivers/outputs.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"
#include "strata/tuning.hpp"

namespace strata::lab {
namespace {

struct Args {
  std::vector<std::string> names;
  std::vector<long long> sizes;
  int reps = 20, warmup = 3;
  bool small = false;
  std::string json, plot;
};

using drivers::write_text;  // whole or not at all, as every output

std::string quoted(const std::string& s) {  // for /bin/sh: '...' with ' as '\''
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs lab/plot.py (compiled in) with python3 on the report's JSON in a private temporary
// directory; the PNG then goes to `png` as every output does (drivers::write_text: whole or not
// at all, missing parent directories created), so a failed plot leaves no file.
void plot(const nlohmann::ordered_json& report, const std::string& png) {
  namespace fs = std::filesystem;
  std::string dir_template = (fs::temp_directory_path() / "strata-plot.XXXXXX").string();
  if (!::mkdtemp(dir_template.data()))
    throw Error("--plot: cannot make a temporary directory: " + std::string(std::strerror(errno)));
  const fs::path dir = dir_template;
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  const std::string script = (dir / "plot.py").string(), data = (dir / "report.json").string(),
                    out = (dir / "plot.png").string();
  { std::ofstream(script) << kPlotScript; }
  { std::ofstream(data) << report.dump(1); }
  const std::string cmd =
      "python3 " + quoted(script) + " " + quoted(data) + " " + quoted(out) + " 2>&1";
  std::string said;
  int rc = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) said += buf;
    rc = ::pclose(p);
  }
  if (rc != 0)
    throw Error("--plot: python3 with matplotlib draws the picture, and it failed" +
                (said.empty() ? std::string(" (is python3 on the PATH?)") : ":\n" + said) +
                "the table and --json are unaffected");
  std::ifstream in(out, std::ios::binary);
  write_text(png,
             std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

// Every experiment is a ladder of CUDA kernels: said once, where they are listed.
constexpr const char* kNeedsGpu = "each needs a GPU: they time CUDA kernels";

std::string listing() {
  std::string s;
  for (const Experiment& e : experiments()) s += "  " + e.name + ": " + e.summary + "\n";
  return s;
}

// The refusal on a machine where no GPU can be used: the experiments asked for, by name.
std::string no_gpu(const std::vector<const Experiment*>& picked) {
  std::string names;
  for (const Experiment* e : picked) names += (names.empty() ? "" : ", ") + e->name;
  return "strata-lab " + names + (picked.size() == 1 ? " needs" : " need") +
         " a GPU (the experiments time CUDA kernels) and none can be used here: " +
         cuda_unavailable_reason();
}

void add_options(CLI::App& app, Args& a) {
  app.add_option("experiment", a.names, "one or more experiments, `all`, or `list`");
  app.add_option("--size", a.sizes,
                 "problem size (repeatable; each experiment says what its size means, e.g. the "
                 "element count of reduce, the matrix edge of matmul); default the seed's sizes")
      ->check(cli::whole_number_in(1, 1e15));
  app.add_option("--reps", a.reps, "timed repetitions per variant (median reported)")
      ->capture_default_str()
      ->check(cli::whole_number_in(1, 100000));
  app.add_option("--warmup", a.warmup, "untimed runs first")
      ->capture_default_str()
      ->check(cli::whole_number_in(0, 1000));
  app.add_flag("--small", a.small, "the test sizes: every variant run and checked in seconds");
  app.add_option("--json", a.json, "also write the report(s) as JSON to this file (atomically)");
  app.add_option("--plot", a.plot,
                 "also draw one experiment's report as a PNG (needs python3 with matplotlib)");
  app.footer(std::string("Experiments (") + kNeedsGpu + "):\n" + listing());
}

// The experiments asked for, run one after the other; 1 when a variant failed its check.
int run(const Args& a) {
  if (a.names.empty() || (a.names.size() == 1 && a.names[0] == "list")) {
    std::cout << "strata-lab experiments (" << kNeedsGpu << "):\n" << listing();
    if (!cuda_available())
      std::cerr << "strata-lab: no GPU can be used here (" << cuda_unavailable_reason()
                << "), so none of these can run on this machine\n";
    return 0;
  }
  std::vector<const Experiment*> picked;
  for (const std::string& n : a.names) {
    if (n == "all") {
      for (const Experiment& e : experiments()) picked.push_back(&e);
    } else {
      picked.push_back(&find(n));  // an unknown name: an Error naming the choices
    }
  }
  if (!a.plot.empty() && picked.size() != 1)
    throw Error(
        "--plot draws one experiment's report: run the experiments one at a time to plot each");
  cli::check_outputs({{"--json", a.json}, {"--plot", a.plot}});  // before the runs, not after
  if (!cuda_available()) throw Error(no_gpu(picked));
  Options opt;
  for (long long s : a.sizes) opt.sizes.push_back(s);
  opt.reps = a.reps;
  opt.warmup = a.warmup;
  opt.small = a.small;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  std::vector<std::string> failed;
  for (const Experiment* e : picked) {
    const Report r = e->run(opt);
    print(r, std::cout);
    std::cout << "\n";
    all.push_back(to_json(r));
    for (const std::string& f : failures(r)) failed.push_back(e->name + ": " + f);
  }
  const nlohmann::ordered_json doc =
      all.size() == 1 ? all[0] : nlohmann::ordered_json{{"reports", all}};
  if (!a.json.empty()) {
    write_text(a.json, doc.dump(1) + "\n");
    std::cerr << "report written to " << a.json << "\n";
  }
  if (!a.plot.empty()) {
    plot(all[0], a.plot);
    std::cerr << "picture written to " << a.plot << "\n";
  }
  if (failed.empty()) return 0;
  std::cerr << "strata-lab: " << failed.size()
            << " variant(s) failed their check and were not ranked:\n";
  for (const std::string& f : failed) std::cerr << "  " << f << "\n";
  return 1;
}

}  // namespace
}  // namespace strata::lab

int main(int argc, char** argv) {
  CLI::App app{
      "strata-lab: the seed documents' experiments on this GPU: numbered kernel variants side by "
      "side, each checked against a CPU reference before it is timed, with the seeds' figures "
      "beside them (docs/lab.md). Every experiment needs a GPU. `strata-lab list` names them.",
      "strata-lab"};
  const auto& b = strata::build_info();
  app.set_version_flag("--version", "strata-lab " + b.version + " (commit " + b.commit + ", " +
                                        (b.cuda ? "CUDA sm_" + b.cuda_architectures : "CPU only") +
                                        ")");
  auto args = std::make_shared<strata::lab::Args>();
  strata::cli::install_signal_handlers();  // an interrupt removes unfinished output files
  try {
    // Registration is inside the try, as in strata: a CLI11 release that rejects an option
    // name must give a message, never std::terminate.
    strata::lab::add_options(app, *args);
    strata::tuning::set_note_handler(  // what tuning did for the stencil experiment, said once
        [](const std::string& note) { std::cerr << "strata-lab: " << note << "\n"; });
    strata::cli::hint_unknown_options(app, argc, argv, "strata-lab");
    app.parse(argc, argv);
    return strata::lab::run(*args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const CLI::ConstructionError& e) {
    std::cerr
        << "strata-lab: internal error registering the command-line options (CLI11 " CLI11_VERSION
           "): "
        << e.what() << "\n";
    return 2;
  } catch (const strata::Error& e) {
    std::cerr << "strata-lab: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata-lab: unexpected error: " << e.what() << "\n";
    return 2;
  }
}
