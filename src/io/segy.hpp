// SEG-Y, the seismic exchange format (SEG rev 0, 1 and 2), as geophysicists and segyio use
// it: read big- or little-endian files of sample formats 1, 2, 3, 5, 6 and 8 with an EBCDIC
// or ASCII textual header; write fixed-length files atomically. A malformed file is refused
// with a strata::Error naming the file, the byte offset and what is wrong; nothing is
// allocated from a header field before the file's size has bounded it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::io::segy {

enum class Endian { big, little };
enum class TextEncoding { ebcdic, ascii };

// Sample format codes (binary header bytes 3225-3226). Others (4, 7, 9-12, 15, 16) are
// refused by name.
enum class Format : int { ibm32 = 1, int32 = 2, int16 = 3, ieee32 = 5, ieee64 = 6, int8 = 8 };
int bytes_per_sample(Format f);
std::string to_string(Format f);  // "4-byte IBM floating point (format 1)"

// The textual and binary file headers. Byte positions are 1-based, as the standard counts.
struct Header {
  std::string text;  // the 3200-byte textual header as 40 lines of 80 ASCII characters joined
                     // by '\n' (EBCDIC decoded as code page 037; a byte that is not ASCII
                     // reads '?'; a writer using code page 500 has its ! [ ] ^ | read so)
  TextEncoding text_encoding = TextEncoding::ebcdic;  // detected (see segy_codec.hpp)
  int extended_text_headers = 0;  // 3505-3506 (rev >= 1): 3200-byte records, skipped; a
                                  // variable count (-1) is resolved by finding the end stanza
  int revision_major = 0, revision_minor = 0;  // bytes 3501 and 3502
  bool fixed_length = false;    // 3503-3504 (rev >= 1): every trace has samples_per_trace
  Endian endian = Endian::big;  // rev 2's 0x01020304 at 3297-3300, else the format code's
  Format format = Format::ieee32;
  int samples_per_trace = 0;      // 3221-3222 (rev 2: 3269-3272 when not 0); when 0, the
                                  // first trace header's
  double sample_interval_us = 0;  // 3217-3218 (rev 2: the double at 3273-3280 when not 0)
  int measurement_system = 0;     // 3255-3256: 1 metres, 2 feet
  std::uint64_t first_trace = 0;  // byte offset of the first trace header
};

// The fields of a 240-byte trace header that an acoustic shot record needs. Coordinates are
// stored as int32 times a scalar (71-72 for x and y, 69-70 for elevations and depths): a
// positive scalar multiplies, a negative one divides, 0 counts as 1. read() applies them;
// write() chooses its own (coordinate_scalar() below).
struct Trace {
  std::int32_t sequence_line = 0;     // 1-4    trace sequence number within the line
  std::int32_t sequence_file = 0;     // 5-8    trace sequence number within the file
  std::int32_t field_record = 0;      // 9-12   original field record (shot) number
  std::int32_t record_trace = 0;      // 13-16  trace number within the field record
  std::int32_t cdp = 0;               // 21-24  ensemble (CDP) number
  std::int32_t offset = 0;            // 37-40  source-receiver distance (whole units, no scalar)
  double group_elevation = 0;         // 41-44  receiver group elevation (up is positive)
  double source_elevation = 0;        // 45-48  surface elevation at the source
  double source_depth = 0;            // 49-52  source depth below the surface (down is positive)
  double source_x = 0, source_y = 0;  // 73-76, 77-80
  double group_x = 0, group_y = 0;    // 81-84, 85-88
  double cdp_x = 0, cdp_y = 0;     // 181-184, 185-188 (rev 1) ensemble position, x and y's scalar
  std::int32_t inline_number = 0;  // 189-192 (rev 1) where a 3D cube's traces sit: segyio's
  std::int32_t crossline_number = 0;  // 193-196 (rev 1) default inline and crossline bytes
  // Filled by read(); write() writes its own and ignores these.
  int ns = 0;                 // 115-116 samples in this trace (0 there: the binary header's)
  int dt_us = 0;              // 117-118 sample interval (microseconds)
  int elevation_scalar = 0;   // 69-70
  int coordinate_scalar = 0;  // 71-72
};

template <class T>
struct Dataset {
  Header header;
  std::vector<Trace> traces;  // in file order
  std::vector<T> samples;     // every trace's samples, one trace after another
  // traces.size() + 1 offsets into samples: trace i is [starts[i], starts[i + 1]).
  std::vector<std::size_t> starts;
  std::span<const T> trace(std::size_t i) const {
    return {samples.data() + starts[i], starts[i + 1] - starts[i]};
  }
};

// Reads a whole file into float or double. Integer and IEEE samples convert as C++ does
// (int32 and float64 into float round to nearest; float64 beyond float's range becomes
// +-inf); IBM samples convert exactly into double and, into float, are that exact value
// rounded once to nearest-even (so beyond float's range +-inf, below it denormals or +-0:
// see ibm_to_float). In a file that says fixed-length (rev >= 1) a trace header giving
// another count than samples_per_trace is refused (0 counts as not given); otherwise (rev 0,
// or not fixed-length) each trace has its own header's count. Refused by name, not read:
// formats 4, 7, 9-12, 15, 16, rev 2's additional trace headers and variable trailer count,
// pairwise-swapped bytes. Throws Error naming the file, the byte offset and the problem.
template <class T>
Dataset<T> read(const std::string& path);

struct WriteOptions {
  Format format = Format::ieee32;
  Endian endian = Endian::big;  // little-endian exists from rev 2 on: written as rev 2
  // Textual header lines 4-38 (lines 1-3 name strata, the traces and the format, 39-40 are
  // the standard's closing lines): at most 35 lines of at most 76 printable ASCII characters,
  // none of ! [ ] ^ | (EBCDIC code pages disagree on them: segyio would read others).
  std::vector<std::string> text;
};

// Writes traces.size() traces of samples.size() / traces.size() samples each (trace after
// trace), sample interval dt seconds, as SEG-Y rev 1 (rev 2 when the format is 6 or the
// file little-endian), fixed-length, through AtomicFile: on any failure the file at `path`
// is left as it was. Every Trace field is written as given except ns, dt_us and the
// scalars. Refused with an Error naming the path: no trace, samples not a whole number per
// trace, more than 65535 samples per trace, dt not a whole number of microseconds (within
// 1e-6 relative) in [1, 65535], a coordinate that does not fit, a value that the format
// cannot hold (IBM: NaN, inf, beyond 7.2e75; integers: not whole or out of range).
template <class T>
void write(const std::string& path, std::span<const Trace> traces, std::span<const T> samples,
           double dt, const WriteOptions& options = {});

// A 3D field (dense [z][y][x], nx x ny x nz points `spacing` metres apart) as a depth
// volume: one trace per (x, y) column, y outer and x inner, nz samples down; inline y + 1 and
// crossline x + 1 at bytes 189 and 193 (segyio's defaults, so it reads the file as a cube), CDP
// X and Y the column's position in metres, CDP the trace's number. The binary header's
// sample interval holds the depth step in millimetres (the depth SEG-Y convention of
// OpendTect and others; a reader that takes it for microseconds gets spacing x 1000); IEEE
// float samples. `what` names the field in the textual header (its first 76 characters, any
// that a textual header cannot hold as '?').
void write_volume(const std::string& path, std::span<const double> values, int nx, int ny, int nz,
                  double spacing, const std::string& what);
// Why write_volume would refuse such a volume ("" : it would not): more than 65535 samples
// down, a spacing not a whole number of millimetres from 1 to 65535.
std::string volume_problem(int nz, double spacing);
// A depth volume of nx x ny x nz points `spacing` metres apart (a velocity model, say) back
// into dense [z][y][x]: nx ny traces of nz samples whose sample interval is the spacing in
// millimetres; placed by their inline (y) and crossline (x) numbers where those number the
// columns once each (any first number), else in file order, y outer (write_volume's). Refused
// with an Error naming the file and what differs.
std::vector<double> read_volume(const std::string& path, int nx, int ny, int nz, double spacing);

// The rules write() follows, for callers that check before the work that makes the samples.
// The sample interval in whole microseconds: dt (s) within 1e-6 relative of a whole number
// of microseconds in [1, 65535]; none otherwise.
std::optional<int> whole_microseconds(double dt);
// The scalar of coordinates (or of elevations and depths) whose largest magnitude is max_abs
// metres: -100 (centimetres) whenever they fit in int32 (up to 21 474 836.47 m), else the
// finest of -10, 1, 10, 100, 1000, 10000 at which they do; none beyond, or for NaN or inf.
std::optional<int> coordinate_scalar(double max_abs);
inline constexpr std::size_t kMaxSamples = 65535;  // per trace: bytes 3221-3222 and 115-116

// ---- IBM System/360 single precision: sign, 7-bit excess-64 exponent of 16, 24-bit
// fraction 0.F (no hidden bit). Every such number is exactly a double.

double ibm_to_double(std::uint32_t bits);  // exact (unnormalised fractions too)
// The exact value rounded once to float, to nearest-even: beyond FLT_MAX (IBM reaches
// 7.2e75) it is +-inf, below FLT_MIN (IBM reaches 5.4e-79) a float denormal or +-0.
float ibm_to_float(std::uint32_t bits);
// The nearest IBM number (ties to even fraction), normalised; zero keeps its sign; values
// below IBM's smallest normal number are unnormalised or +-0. None for NaN, +-inf and
// magnitudes that round beyond IBM's largest (16^63 (1 - 2^-24)).
std::optional<std::uint32_t> to_ibm(double v);

}  // namespace strata::io::segy
