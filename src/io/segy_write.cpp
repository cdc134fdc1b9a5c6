// The SEG-Y writer (segy.hpp): a fixed-length rev 1 file (rev 2 for format 6 or
// little-endian) laid out in memory a header and a trace at a time and handed to AtomicFile,
// so a refused value part-way leaves whatever was at the path. Byte positions in comments
// are the standard's, 1-based.
#include "io/segy.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "io/atomic_file.hpp"
#include "io/segy_codec.hpp"
#include "strata/device.hpp"
#include "strata/error.hpp"

namespace strata::io::segy {

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

std::int32_t stored(double v, int scalar) {
  return std::int32_t(std::llround(scalar < 0 ? v * -scalar : v / scalar));
}

// "C 1 text" padded to 80 columns.
std::string card(int line, const std::string& text) {
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "C%2d ", line);
  std::string s = prefix + text;
  s.resize(80, ' ');
  return s;
}

}  // namespace

std::optional<int> whole_microseconds(double dt) {
  const double us = dt * 1e6, whole = std::nearbyint(us);
  if (!(std::isfinite(us) && whole >= 1 && whole <= 65535 && std::fabs(us - whole) <= 1e-6 * whole))
    return std::nullopt;
  return int(whole);
}

std::optional<int> coordinate_scalar(double max_abs) {
  for (int s : {-100, -10, 1, 10, 100, 1000, 10000})
    if ((s < 0 ? max_abs * -s : max_abs / s) < 2147483647.5) return s;  // llround fits; NaN never
  return std::nullopt;
}

template <class T>
void write(const std::string& path, std::span<const Trace> traces, std::span<const T> samples,
           double dt, const WriteOptions& options) {
  const std::string where = "cannot write SEG-Y file '" + path + "': ";
  const auto refuse = [&](const std::string& what) { throw Error(where + what); };
  if (traces.empty()) refuse("no traces given; a SEG-Y file holds at least one");
  if (samples.size() % traces.size() != 0)
    refuse(num(samples.size()) + " samples are not a whole number per trace for " +
           num(traces.size()) + " traces");
  const std::size_t ns = samples.size() / traces.size();
  if (ns == 0 || ns > kMaxSamples)
    refuse(num(ns) +
           " samples per trace; SEG-Y holds 1 to 65535 (bytes 3221-3222 and 115-116 are 16 bits)");
  const std::optional<int> us = whole_microseconds(dt);
  if (!us)
    refuse(
        "the sample interval " + format_number(dt) + " s is " + format_number(dt * 1e6) +
        " microseconds; SEG-Y stores a whole number of microseconds from 1 to 65535 (16 bits), and "
        "this writer accepts an interval within 1e-6 relative of one");
  const std::uint64_t whole = std::uint64_t(*us);
  const int code = static_cast<int>(options.format);
  if (!is_supported(code))
    refuse("format code " + std::to_string(code) +
           " is not one this writer writes (1, 2, 3, 5, 6, 8)");
  const Format format = options.format;
  const Endian e = options.endian;
  const int rev = (format == Format::ieee64 || e == Endian::little) ? 2 : 1;
  if (options.text.size() > 35)
    refuse("the textual header takes at most 35 lines of description, " + num(options.text.size()) +
           " given");
  for (std::size_t i = 0; i < options.text.size(); ++i) {
    const std::string& line = options.text[i];
    if (line.size() > 76)
      refuse("textual header line " + num(i) + " has " + num(line.size()) +
             " characters; at most 76 fit");
    for (char c : line)
      if (!ebcdic_portable(c))
        refuse("textual header line " + num(i) +
               " holds a character that is not printable ASCII or is one of ! [ ] ^ |, which "
               "EBCDIC code pages 037 and 500 (segyio's) encode differently");
  }
  double max_xy = 0, max_z = 0;
  for (const Trace& t : traces) {
    for (double v : {t.source_x, t.source_y, t.group_x, t.group_y, t.cdp_x, t.cdp_y})
      max_xy = std::max(max_xy, std::isfinite(v) ? std::fabs(v) : HUGE_VAL);
    for (double v : {t.group_elevation, t.source_elevation, t.source_depth})
      max_z = std::max(max_z, std::isfinite(v) ? std::fabs(v) : HUGE_VAL);
  }
  const std::optional<int> xy_scalar = coordinate_scalar(max_xy),
                           z_scalar = coordinate_scalar(max_z);
  if (!xy_scalar || !z_scalar)
    refuse(
        "a coordinate, elevation or depth is not finite or beyond what int32 times 10000 holds (" +
        format_number(std::max(max_xy, max_z)) + ")");

  // Textual header: strata, the traces, the format; the caller's lines; the closing lines.
  std::vector<std::string> lines = {
      "SEG-Y rev " + std::to_string(rev) + ".0 written by strata " + build_info().version,
      num(traces.size()) + " traces of " + num(ns) + " samples, sample interval " + num(whole) +
          " us",
      "samples: " + to_string(format) + ", " + (e == Endian::big ? "big" : "little") + "-endian"};
  lines.insert(lines.end(), options.text.begin(), options.text.end());
  lines.resize(38);
  lines.push_back(rev == 1 ? "SEG Y REV1" : "SEG-Y_REV2.0");
  lines.push_back("END TEXTUAL HEADER");
  unsigned char pre[kPreamble] = {};
  for (int l = 0; l < 40; ++l) {
    const std::string c = card(l + 1, lines[std::size_t(l)].substr(0, 76));
    for (int i = 0; i < 80; ++i) pre[l * 80 + i] = *ascii_to_ebcdic(c[std::size_t(i)]);
  }

  // Binary header.
  unsigned char* b = pre;
  store(b + 3212, 2, traces.size() <= 65535 ? traces.size() : 0, e);  // data traces per ensemble
  store(b + 3216, 2, whole, e);                                       // sample interval (us)
  store(b + 3218, 2, whole, e);                                       // original sample interval
  store(b + 3220, 2, ns, e);                                          // samples per trace
  store(b + 3222, 2, ns, e);                                          // original samples per trace
  store(b + 3224, 2, std::uint64_t(code), e);                         // sample format
  store(b + 3228, 2, 1, e);                                           // sorting: as recorded
  store(b + 3254, 2, 1, e);                                           // measurement system: metres
  b[3500] = std::uint8_t(rev);                                        // revision rev.0
  b[3501] = 0;
  store(b + 3502, 2, 1, e);  // fixed-length traces
  if (rev == 2) {
    store(b + 3268, 4, ns, e);
    store(b + 3272, 8, std::bit_cast<std::uint64_t>(double(whole)), e);
    store(b + 3296, 4, kByteOrder, e);
    store(b + 3512, 8, traces.size(), e);
    store(b + 3520, 8, kPreamble, e);
  }

  AtomicFile out(path);
  out.write(pre, kPreamble);
  const std::size_t bps = std::size_t(bytes_per_sample(format));
  std::vector<unsigned char> trace(kTraceHeader + ns * bps);
  for (std::size_t k = 0; k < traces.size(); ++k) {
    const Trace& t = traces[k];
    std::fill(trace.begin(), trace.begin() + kTraceHeader, 0);
    unsigned char* h = trace.data();
    store(h + 0, 4, std::uint32_t(t.sequence_line), e);
    store(h + 4, 4, std::uint32_t(t.sequence_file), e);
    store(h + 8, 4, std::uint32_t(t.field_record), e);
    store(h + 12, 4, std::uint32_t(t.record_trace), e);
    store(h + 20, 4, std::uint32_t(t.cdp), e);
    store(h + 28, 2, 1, e);  // trace identification: seismic data
    store(h + 36, 4, std::uint32_t(t.offset), e);
    store(h + 40, 4, std::uint32_t(stored(t.group_elevation, *z_scalar)), e);
    store(h + 44, 4, std::uint32_t(stored(t.source_elevation, *z_scalar)), e);
    store(h + 48, 4, std::uint32_t(stored(t.source_depth, *z_scalar)), e);
    store(h + 68, 2, std::uint16_t(*z_scalar), e);
    store(h + 70, 2, std::uint16_t(*xy_scalar), e);
    store(h + 72, 4, std::uint32_t(stored(t.source_x, *xy_scalar)), e);
    store(h + 76, 4, std::uint32_t(stored(t.source_y, *xy_scalar)), e);
    store(h + 80, 4, std::uint32_t(stored(t.group_x, *xy_scalar)), e);
    store(h + 84, 4, std::uint32_t(stored(t.group_y, *xy_scalar)), e);
    store(h + 88, 2, 1, e);  // coordinate units: length (metres, the binary header says)
    store(h + 114, 2, ns, e);
    store(h + 116, 2, whole, e);
    store(h + 180, 4, std::uint32_t(stored(t.cdp_x, *xy_scalar)), e);
    store(h + 184, 4, std::uint32_t(stored(t.cdp_y, *xy_scalar)), e);
    store(h + 188, 4, std::uint32_t(t.inline_number), e);
    store(h + 192, 4, std::uint32_t(t.crossline_number), e);
    for (std::size_t i = 0; i < ns; ++i) {
      const T v = samples[k * ns + i];
      unsigned char* p = h + kTraceHeader + i * bps;
      bool ok = true;
      if constexpr (std::is_same_v<T, float>) {
        if (format == Format::ieee32)
          store(p, 4, std::bit_cast<std::uint32_t>(v), e);  // bits as they are
        else
          ok = encode_sample(p, v, format, e);
      } else {
        ok = encode_sample(p, v, format, e);
      }
      if (!ok)
        refuse("sample " + num(i) + " of trace " + num(k) + " is " + format_number(double(v)) +
               ", which " + to_string(format) + " cannot hold" +
               (format == Format::ibm32 ? " (IBM float has no NaN or infinity and ends near 7.2e75)"
                                        : " (a whole number in the type's range)"));
    }
    out.write(trace.data(), trace.size());
  }
  out.commit();
}

std::string volume_problem(int nz, double spacing) {
  if (nz < 1 || std::size_t(nz) > kMaxSamples)
    return std::to_string(nz) + " points down; a SEG-Y trace holds 1 to 65535 samples";
  if (!whole_microseconds(spacing * 1e-3))
    return "the spacing " + format_number(spacing) +
           " m is not a whole number of millimetres from 1 to 65535, which a depth SEG-Y's "
           "sample interval holds";
  return "";
}

void write_volume(const std::string& path, std::span<const double> values, int nx, int ny, int nz,
                  double spacing, const std::string& what) {
  if (const std::string why = volume_problem(nz, spacing); !why.empty())
    throw Error("SEG-Y '" + path + "': " + why);
  const std::size_t columns = std::size_t(nx) * std::size_t(ny), depth = std::size_t(nz);
  if (values.size() != columns * depth)
    throw Error("SEG-Y '" + path + "': " + num(values.size()) + " values for a " + num(nx) + "x" +
                num(ny) + "x" + num(nz) + " volume");
  std::vector<Trace> traces(columns);
  std::vector<float> samples(columns * depth);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const std::size_t k = std::size_t(y) * std::size_t(nx) + std::size_t(x);
      Trace& t = traces[k];
      t.sequence_line = t.sequence_file = t.cdp = std::int32_t(k + 1);
      t.cdp_x = x * spacing;
      t.cdp_y = y * spacing;
      t.inline_number = y + 1;
      t.crossline_number = x + 1;
      for (std::size_t z = 0; z < depth; ++z)
        samples[k * depth + z] = float(values[z * columns + k]);
    }
  // The caller's words as a textual header line holds them: what EBCDIC code pages disagree
  // on (or is not printable ASCII) becomes '?', never a refusal after the work is done.
  std::string label = what.substr(0, 76);
  for (char& c : label)
    if (!ebcdic_portable(c)) c = '?';
  WriteOptions o;
  o.text = {label,
            "a depth volume: " + num(nx) + " x " + num(ny) + " x " + num(nz) + " points, " +
                format_number(spacing) + " m apart",
            "one trace per (x, y) column, y outer; inline y + 1, crossline x + 1",
            "CDP X and Y in metres; the sample interval is the depth step in mm"};
  write<float>(path, traces, samples, spacing * 1e-3, o);
}

template void write(const std::string&, std::span<const Trace>, std::span<const float>, double,
                    const WriteOptions&);
template void write(const std::string&, std::span<const Trace>, std::span<const double>, double,
                    const WriteOptions&);

}  // namespace strata::io::segy
