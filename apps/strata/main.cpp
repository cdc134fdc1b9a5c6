// strata: the command-line tool. One verb per job; each verb lives in its own file.
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/strata/commands.hpp"
#include "apps/strata/signals.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"strata: stencils and solvers on structured 3D grids, on the GPU at the speed "
               "of its memory (CPU reference backend when there is no GPU)"};
  app.require_subcommand(1);
  const auto& b = strata::build_info();
  app.set_version_flag("--version", "strata " + b.version + " (commit " + b.commit + ", " +
                                        (b.cuda ? "CUDA sm_" + b.cuda_architectures : "CPU only") + ")");
  strata::cli::install_signal_handlers();
  try {
    // Registration is inside the try: a CLI11 release that rejects an option name must
    // give a message, never std::terminate (CLI11 2.4 refused `--h` beside `-h`).
    strata::cli::add_info(app);
    strata::cli::add_apply(app);
    strata::cli::add_bench(app);
    strata::cli::add_demo(app);
    strata::cli::add_poisson(app);
    strata::cli::add_wave(app);
    // A verb that does not exist is named as such (CLI11 would say "A subcommand is required").
    if (argc > 1 && argv[1][0] != '-') {
      std::string verbs;
      bool known = false;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
        known = known || sub->get_name() == argv[1];
      }
      if (!known)
        throw strata::Error("unknown command '" + std::string(argv[1]) + "': allowed " + verbs +
                            " (strata --help describes them)");
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const CLI::ConstructionError& e) {
    std::cerr << "strata: internal error registering the command-line options (CLI11 " CLI11_VERSION "): "
              << e.what() << "\n";
    return 2;
  } catch (const strata::Error& e) {
    std::cerr << "strata: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "strata: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return strata::cli::exit_code();
}
