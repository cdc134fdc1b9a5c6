// What a finished wave run leaves beside its report, written by rank 0 once the last step
// has been checked: the seismogram (seismogram.npy, time x receiver, with output.segy also
// seismogram.sgy, and its picture), the receivers' positions (receivers.npy) and the
// configuration that produced them (config.json). An interrupted run writes none of them.
#pragma once

#include <vector>

#include "drivers/wave/run_directory.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// traces: rows x every receiver (the gathered seismogram), empty without receivers.
template <class T>
void write_results(const Config& c, const Plan& p, const std::vector<T>& traces, int rows,
                   OutputList& out);

}  // namespace strata::wave
