// The CLI verbs. Each add_* registers a subcommand whose callback does the work and
// throws strata::Error on bad input; main() turns that into a message and exit code 1.
#pragma once

#include <chrono>

#include <CLI/CLI.hpp>

namespace strata::cli {

void add_info(CLI::App& app);
void add_apply(CLI::App& app);
void add_bench(CLI::App& app);
void add_lab(CLI::App& app);
void add_migrate(CLI::App& app);  // migrate and gradient
void add_demo(CLI::App& app);
void add_poisson(CLI::App& app);
void add_tune(CLI::App& app);
void add_wave(CLI::App& app);

// When the process started (main's first line): reports time the whole process from it.
std::chrono::steady_clock::time_point process_start();

// A verb that finished but found a failure (e.g. demo check mismatch) sets this non-zero.
int exit_code();
void set_exit_code(int code);

}  // namespace strata::cli
