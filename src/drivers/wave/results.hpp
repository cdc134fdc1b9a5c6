// What a finished wave run leaves beside its report, written by rank 0 once the last step
// has been checked: the seismogram (seismogram.npy, time x receiver, with output.segy also
// seismogram.sgy, and its picture), the receivers' positions (receivers.npy) and the
// configuration that produced them (config.json). An interrupted run writes none of them.
#pragma once

#include <string>
#include <vector>

#include "drivers/wave/run_directory.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

// A seismogram (traces: rows x receivers) as SEG-Y: one trace per receiver, in the columns'
// order, samples float32 every dt x receivers.every from t = 0 (wave::check_segy has checked
// that this is whole microseconds and at most 65535 samples). z is depth below the grid's
// top, the datum: the source's depth is bytes 49-52, a receiver's elevation (41-44) is -z.
// The first source stands in the headers; the textual header says what the samples are
// (`text`) and lists the sources (up to 20).
struct SeismogramText {
  std::string what, columns, configuration;  // its first two lines and its last
};
template <class T>
void write_seismogram_segy(const std::string& path, const Config& c, double dt,
                           const std::vector<Vec3>& receivers, const std::vector<T>& traces,
                           int rows, const SeismogramText& text);

// traces: rows x every receiver (the gathered seismogram), empty without receivers.
template <class T>
void write_results(const Config& c, const Plan& p, const std::vector<T>& traces, int rows,
                   OutputList& out);

}  // namespace strata::wave
