// strata's SEG-Y reader and writer as a program, for tests/io/test_segy_segyio.py to hold
// against segyio: `write` makes a file from plain text on stdin, `dump` prints what read()
// finds, both with every number in a form that reads back exactly (%.17g).
//   strata_segy_probe write OUT.sgy FORMAT big|little DT_SECONDS < traces.txt
//     stdin: "NTRACES NS", then per trace one line of its header (sequence_line
//     sequence_file field_record record_trace cdp offset group_elevation source_elevation
//     source_depth source_x source_y group_x group_y) and one line of its NS samples
//   strata_segy_probe dump IN.sgy float|double
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "io/segy.hpp"
#include "strata/error.hpp"

using namespace strata::io::segy;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: strata_segy_probe write OUT FORMAT big|little DT < text\n"
               "       strata_segy_probe dump IN float|double\n");
  return 2;
}

std::string g(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

int write_file(const std::string& path, int format, const std::string& endian, double dt) {
  std::size_t n = 0, ns = 0;
  if (!(std::cin >> n >> ns)) throw strata::Error("stdin: expected NTRACES NS");
  std::vector<Trace> traces(n);
  std::vector<double> samples(n * ns);
  for (std::size_t k = 0; k < n; ++k) {
    Trace& t = traces[k];
    std::cin >> t.sequence_line >> t.sequence_file >> t.field_record >> t.record_trace >> t.cdp >>
        t.offset >> t.group_elevation >> t.source_elevation >> t.source_depth >> t.source_x >>
        t.source_y >> t.group_x >> t.group_y;
    for (std::size_t i = 0; i < ns; ++i) {
      std::string word;  // strtod reads inf and nan, which operator>> does not
      std::cin >> word;
      samples[k * ns + i] = std::strtod(word.c_str(), nullptr);
    }
    if (!std::cin) throw strata::Error("stdin: trace " + std::to_string(k) + " is incomplete");
  }
  WriteOptions o;
  o.format = Format(format);
  o.endian = endian == "little" ? Endian::little : Endian::big;
  // Every character the writer takes, so that segyio's EBCDIC table is held against it.
  std::string portable;
  for (char c = ' '; c <= '~'; ++c)
    if (std::string("![]^|").find(c) == std::string::npos) portable += c;
  o.text = {"strata_segy_probe: a file for the segyio cross-check", portable.substr(0, 45),
            portable.substr(45)};
  write<double>(path, traces, samples, dt, o);
  return 0;
}

template <class T>
int dump(const std::string& path) {
  const Dataset<T> d = read<T>(path);
  const Header& h = d.header;
  std::cout << "format " << int(h.format) << "\nendian "
            << (h.endian == Endian::big ? "big" : "little") << "\nrevision " << h.revision_major
            << " " << h.revision_minor << "\nfixed " << h.fixed_length << "\nns "
            << h.samples_per_trace << "\ndt_us " << g(h.sample_interval_us) << "\nencoding "
            << (h.text_encoding == TextEncoding::ebcdic ? "ebcdic" : "ascii") << "\nextended "
            << h.extended_text_headers << "\ncount " << d.traces.size() << "\n";
  std::istringstream text(h.text);
  for (std::string line; std::getline(text, line);) std::cout << "text " << line << "\n";
  for (std::size_t k = 0; k < d.traces.size(); ++k) {
    const Trace& t = d.traces[k];
    std::cout << "trace " << t.sequence_line << " " << t.sequence_file << " " << t.field_record
              << " " << t.record_trace << " " << t.cdp << " " << t.offset << " "
              << g(t.group_elevation) << " " << g(t.source_elevation) << " " << g(t.source_depth)
              << " " << g(t.source_x) << " " << g(t.source_y) << " " << g(t.group_x) << " "
              << g(t.group_y) << " " << t.ns << " " << t.dt_us << " " << t.elevation_scalar << " "
              << t.coordinate_scalar << "\nsamples";
    for (T v : d.trace(k)) std::cout << " " << g(double(v));
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() == 5 && a[0] == "write")
      return write_file(a[1], std::atoi(a[2].c_str()), a[3], std::atof(a[4].c_str()));
    if (a.size() == 3 && a[0] == "dump")
      return a[2] == "double" ? dump<double>(a[1]) : dump<float>(a[1]);
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return usage();
}
