// The files a wave run writes into its output directory: what its RunDirectory may replace
// or continue. run.cpp writes them; shots.cpp checks each shot's directory with the same list.
#pragma once

#include "io/run_directory.hpp"

namespace strata::wave {

// ranks: a distributed run writes one checkpoint per rank.
io::RunFiles run_files(int ranks = 1);

}  // namespace strata::wave
