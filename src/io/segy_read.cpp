// The SEG-Y reader (segy.hpp): walks textual header, binary header, extended textual
// headers and traces, checking each size against what the file holds before reading or
// allocating anything. Byte positions in comments are the standard's, 1-based; offsets in
// messages are 0-based, as a hex dump counts.
#include "io/segy.hpp"

#include <sys/stat.h>

#include <bit>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "io/segy_codec.hpp"
#include "strata/error.hpp"

namespace strata::io::segy {

namespace {

constexpr const char* kEndText = "((SEG: EndText))";  // closes a variable count of extended headers

std::string num(std::uint64_t v) { return std::to_string(v); }

[[noreturn]] void fail(const std::string& path, std::uint64_t offset, const std::string& what) {
  throw Error("SEG-Y file '" + path + "', byte offset " + num(offset) + ": " + what);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

class Input {
 public:
  explicit Input(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "rb")) {
    if (!file_) throw Error("SEG-Y file '" + path + "': cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(::fileno(file_.get()), &st) != 0)
      throw Error("SEG-Y file '" + path + "': cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error("SEG-Y file '" + path + "': not a regular file");
    size_ = std::uint64_t(st.st_size);
  }
  std::uint64_t size() const { return size_; }

  // Reads n bytes at offset, which the caller has checked lie inside the file.
  void read(std::uint64_t offset, void* dst, std::size_t n) {
    if (offset != position_ && ::fseeko(file_.get(), off_t(offset), SEEK_SET) != 0)
      fail(path_, offset, std::string("cannot seek: ") + std::strerror(errno));
    if (std::fread(dst, 1, n, file_.get()) != n) {
      position_ = std::uint64_t(-1);
      if (std::ferror(file_.get()))
        fail(path_, offset, std::string("read error: ") + std::strerror(errno));
      fail(path_, offset, "the file ended early (was it changed while being read?)");
    }
    position_ = offset + n;
  }

 private:
  const std::string& path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::uint64_t size_ = 0, position_ = 0;
};

double scaled(std::int32_t v, int scalar) {
  return scalar > 0 ? double(v) * scalar : scalar < 0 ? double(v) / -scalar : double(v);
}

// The trace header at h; ns and dt_us as stored (the caller resolves ns = 0).
Trace parse_trace(const unsigned char* h, Endian e) {
  Trace t;
  t.sequence_line = load_i32(h + 0, e);
  t.sequence_file = load_i32(h + 4, e);
  t.field_record = load_i32(h + 8, e);
  t.record_trace = load_i32(h + 12, e);
  t.cdp = load_i32(h + 20, e);
  t.offset = load_i32(h + 36, e);
  t.elevation_scalar = load_i16(h + 68, e);
  t.coordinate_scalar = load_i16(h + 70, e);
  t.group_elevation = scaled(load_i32(h + 40, e), t.elevation_scalar);
  t.source_elevation = scaled(load_i32(h + 44, e), t.elevation_scalar);
  t.source_depth = scaled(load_i32(h + 48, e), t.elevation_scalar);
  t.source_x = scaled(load_i32(h + 72, e), t.coordinate_scalar);
  t.source_y = scaled(load_i32(h + 76, e), t.coordinate_scalar);
  t.group_x = scaled(load_i32(h + 80, e), t.coordinate_scalar);
  t.group_y = scaled(load_i32(h + 84, e), t.coordinate_scalar);
  t.cdp_x = scaled(load_i32(h + 180, e), t.coordinate_scalar);
  t.cdp_y = scaled(load_i32(h + 184, e), t.coordinate_scalar);
  t.inline_number = load_i32(h + 188, e);
  t.crossline_number = load_i32(h + 192, e);
  t.ns = load_u16(h + 114, e);
  t.dt_us = load_u16(h + 116, e);
  return t;
}

// The byte order: rev 2's constant when present, else the order in which the format code is
// one the standard defines (the other order reads it as a multiple of 256).
Endian detect_endian(const unsigned char* pre, const std::string& path) {
  const std::uint32_t constant = load_u32(pre + 3296, Endian::big);
  if (constant == kByteOrder) return Endian::big;
  if (constant == 0x04030201u) return Endian::little;  // the constant stored little-endian
  if (constant == 0x02010403u)
    fail(path, 3296,
         "the byte-order constant (bytes 3297-3300) says pairwise-swapped bytes, which "
         "this reader does not read; allowed: big- or little-endian");
  const int big = load_u16(pre + 3224, Endian::big), little = load_u16(pre + 3224, Endian::little);
  if (is_format_code(big)) return Endian::big;
  if (is_format_code(little)) return Endian::little;
  fail(path, 3224,
       "the sample format code (bytes 3225-3226) reads " + num(big) + " big-endian and " +
           num(little) +
           " little-endian: neither is a SEG-Y format code (1-12, 15, 16), "
           "so this is not a SEG-Y file or its binary header is damaged");
}

// Where the traces start after `count` extended textual headers (-1: as many as run up to
// the record holding the end stanza), checked against the file's size.
std::uint64_t skip_extended_text(Input& in, int& count, const std::string& path) {
  const std::uint64_t after = in.size() - kPreamble;
  if (count >= 0) {
    if (std::uint64_t(count) * kText > after)
      fail(path, 3504,
           "the binary header (bytes 3505-3506) says " + num(std::uint64_t(count)) +
               " extended textual headers of 3200 bytes, but only " + num(after) +
               " bytes follow the binary header: the file is truncated or the count is wrong");
    return kPreamble + std::uint64_t(count) * kText;
  }
  if (count != -1)
    fail(path, 3504,
         "the count of extended textual headers (bytes 3505-3506) is " + std::to_string(count) +
             "; allowed: 0 or more, or -1 (a variable count ended by " + kEndText + ")");
  unsigned char record[kText];
  for (std::uint64_t at = kPreamble; at + kText <= in.size(); at += kText) {
    in.read(at, record, kText);
    const std::string text = decode_text(record, kText, detect_text(record, kText));
    if (text.find(kEndText) != std::string::npos) {
      count = int((at - kPreamble) / kText + 1);
      return at + kText;
    }
  }
  fail(path, 3504,
       std::string(
           "the binary header (bytes 3505-3506) says a variable count of extended textual ") +
           "headers (-1), but no 3200-byte record up to the end of the file holds " + kEndText);
}

template <class T>
T decode(const unsigned char* p, Format f, Endian e) {
  // The IEEE format of T copies its bits (NaN payloads kept); every other goes through the
  // exact double.
  if constexpr (std::is_same_v<T, float>)
    if (f == Format::ieee32) return std::bit_cast<float>(load_u32(p, e));
  return static_cast<T>(decode_sample(p, f, e));
}

}  // namespace

template <class T>
Dataset<T> read(const std::string& path) {
  Input in(path);
  if (in.size() < kPreamble)
    fail(path, in.size(),
         "the file is " + num(in.size()) + " bytes long; a SEG-Y file starts with a " +
             "3200-byte textual header and a 400-byte binary header (3600 bytes)");
  unsigned char pre[kPreamble];
  in.read(0, pre, kPreamble);

  Dataset<T> d;
  Header& h = d.header;
  h.text_encoding = detect_text(pre, kText);
  const std::string flat = decode_text(pre, kText, h.text_encoding);
  for (std::size_t line = 0; line < 40; ++line)
    h.text += flat.substr(line * 80, 80) + (line < 39 ? "\n" : "");

  const Endian e = h.endian = detect_endian(pre, path);
  const int code = load_u16(pre + 3224, e);
  if (!is_format_code(code))
    fail(path, 3224,
         "the sample format code (bytes 3225-3226) is " + num(code) +
             ", not a SEG-Y format code (1-12, 15, 16)");
  if (!is_supported(code))
    fail(path, 3224,
         "sample format " + num(code) + " (" + format_code_name(code) +
             ") is not supported; supported: 1 (IBM float), 2, 3, 8 (integers of 4, 2, "
             "1 bytes), 5, 6 (IEEE float of 4, 8 bytes)");
  h.format = Format(code);

  // Revision 2 has one byte each for major and minor; rev 1 the 16-bit 0x0100, whose bytes in
  // a little-endian file (segyio writes one) come out as 0 and 1. Bytes 3501 on were
  // unassigned in rev 0: an unknown major revision reads as rev 0.
  h.revision_major = pre[3500];
  h.revision_minor = pre[3501];
  if (e == Endian::little && h.revision_major == 0 &&
      (h.revision_minor == 1 || h.revision_minor == 2))
    h.revision_major = std::exchange(h.revision_minor, 0);
  const int rev = h.revision_major <= 2 ? h.revision_major : 0;
  if (rev >= 1) {
    h.fixed_length = load_u16(pre + 3502, e) != 0;
    h.extended_text_headers = load_i16(pre + 3504, e);
  }
  h.samples_per_trace = load_u16(pre + 3220, e);
  h.sample_interval_us = load_u16(pre + 3216, e);
  h.measurement_system = load_u16(pre + 3254, e);
  std::uint64_t trace_count = 0, first_trace = 0, trailer = 0;
  if (rev >= 2) {
    if (const std::uint32_t ns = load_u32(pre + 3268, e); ns != 0) {
      if (ns > std::uint32_t(std::numeric_limits<int>::max()))
        fail(path, 3268,
             "the binary header (bytes 3269-3272) says " + num(ns) +
                 " samples per trace; this reader takes at most 2147483647");
      h.samples_per_trace = int(ns);
    }
    if (const double dt = std::bit_cast<double>(load(pre + 3272, 8, e)); dt != 0)
      h.sample_interval_us = dt;
    if (const std::uint32_t extra = load_u32(pre + 3506, e); extra != 0)
      fail(path, 3506,
           "the binary header (bytes 3507-3510) says traces have up to " + num(extra) +
               " additional 240-byte trace headers, which this reader does not read");
    trace_count = load(pre + 3512, 8, e);
    first_trace = load(pre + 3520, 8, e);
    const std::int32_t stanzas = load_i32(pre + 3528, e);
    if (stanzas < 0)
      fail(path, 3528,
           "the binary header (bytes 3529-3532) says " + std::to_string(stanzas) +
               " data trailer records; this reader reads a count of 0 or more");
    trailer = std::uint64_t(stanzas) * kText;
  }

  std::uint64_t start = skip_extended_text(in, h.extended_text_headers, path);
  if (first_trace != 0) {
    if (first_trace < start || first_trace > in.size())
      fail(path, 3520,
           "the binary header (bytes 3521-3528) puts the first trace at byte " + num(first_trace) +
               ", outside [" + num(start) + ", " + num(in.size()) +
               "] (after the headers, inside the file)");
    start = first_trace;
  }
  h.first_trace = start;
  if (trailer > in.size() - start)
    fail(path, 3528,
         "the binary header (bytes 3529-3532) says " + num(trailer / kText) +
             " data trailer records of 3200 bytes, more than the " + num(in.size() - start) +
             " bytes after the first trace's offset");
  const std::uint64_t end = in.size() - trailer;

  unsigned char th[kTraceHeader];
  if (h.samples_per_trace == 0 && end - start >= kTraceHeader) {
    in.read(start, th, kTraceHeader);
    h.samples_per_trace = load_u16(th + 114, e);
  }
  if (h.samples_per_trace == 0)
    fail(path, 3220,
         "the samples per trace (bytes 3221-3222) are 0" +
             std::string(end - start >= kTraceHeader
                             ? " in the binary header and in the first trace header (its bytes "
                               "115-116, at byte " +
                                   num(start + 114) + ")"
                             : ", and there is no trace header to take them from"));
  const std::uint64_t ns = std::uint64_t(h.samples_per_trace),
                      bps = std::uint64_t(bytes_per_sample(h.format));
  const std::uint64_t trace_bytes = kTraceHeader + ns * bps;
  const std::string layout = "240-byte header + " + num(ns) + " samples x " + num(bps) +
                             " bytes (" + format_code_name(code) + ")";
  if (h.fixed_length) {
    const std::uint64_t data = end - start;
    if (data % trace_bytes != 0)
      fail(path, start,
           "the " + num(data) + " bytes of traces are not a whole number of " + num(trace_bytes) +
               "-byte traces (" + layout + "): " + num(data / trace_bytes) + " traces and " +
               num(data % trace_bytes) +
               " bytes over; the file is truncated or its samples per "
               "trace or format code are wrong");
    d.traces.reserve(data / trace_bytes);  // bounded by the file's size
    d.samples.reserve(data / trace_bytes * ns);
  }

  std::vector<unsigned char> buffer;
  d.starts.push_back(0);
  for (std::uint64_t at = start; at < end;) {
    const std::uint64_t k = d.traces.size();
    if (end - at < kTraceHeader)
      fail(path, at,
           "trace " + num(k) + " is cut short: its 240-byte header has " + num(end - at) +
               " bytes; the file is truncated or a sample count is wrong");
    in.read(at, th, kTraceHeader);
    Trace t = parse_trace(th, e);
    if (h.fixed_length && t.ns != 0 && std::uint64_t(t.ns) != ns)
      fail(path, at + 114,
           "trace " + num(k) + "'s header says " + num(std::uint64_t(t.ns)) +
               " samples (its bytes 115-116), the binary header " + num(ns) +
               ", and the file says every trace has that length (fixed-length flag, "
               "bytes 3503-3504)");
    if (t.ns == 0) t.ns = int(ns);
    const std::uint64_t bytes = std::uint64_t(t.ns) * bps;
    if (bytes > end - at - kTraceHeader)
      fail(path, at,
           "trace " + num(k) + " is cut short: its " + num(std::uint64_t(t.ns)) + " samples need " +
               num(bytes) + " bytes after its header, " + num(end - at - kTraceHeader) +
               " remain; the file is truncated or a sample count is wrong");
    buffer.resize(bytes);  // bounded by the bytes the file holds
    in.read(at + kTraceHeader, buffer.data(), bytes);
    for (std::uint64_t i = 0; i < std::uint64_t(t.ns); ++i)
      d.samples.push_back(decode<T>(buffer.data() + i * bps, h.format, e));
    d.starts.push_back(d.samples.size());
    d.traces.push_back(t);
    at += kTraceHeader + bytes;
  }
  if (trace_count != 0 && trace_count != d.traces.size())
    fail(path, 3512,
         "the binary header (bytes 3513-3520) says " + num(trace_count) +
             " traces; the file holds " + num(d.traces.size()));
  return d;
}

std::vector<double> read_volume(const std::string& path, int nx, int ny, int nz, double spacing) {
  const Dataset<double> d = read<double>(path);
  const std::size_t columns = std::size_t(nx) * std::size_t(ny), depth = std::size_t(nz);
  auto refuse = [&](const std::string& why) { throw Error("SEG-Y '" + path + "': " + why); };
  if (d.traces.size() != columns)
    refuse(num(d.traces.size()) + " traces; a " + num(std::size_t(nx)) + " x " +
           num(std::size_t(ny)) + " grid has " + num(columns) + " columns (one trace each)");
  for (std::size_t k = 0; k < columns; ++k)
    if (d.trace(k).size() != depth)
      refuse("trace " + num(k + 1) + " has " + num(d.trace(k).size()) + " samples; the grid has " +
             num(depth) + " points down");
  const double step_mm = d.header.sample_interval_us;  // a depth volume's: millimetres
  if (std::fabs(step_mm - spacing * 1e3) > 0.5)
    refuse("its sample interval says " + num(std::uint64_t(std::llround(step_mm))) +
           " (mm down, in a depth volume); the grid's spacing is " +
           num(std::uint64_t(std::llround(spacing * 1e3))) + " mm");
  // Where each trace goes: by inline and crossline when they number the columns once each.
  std::int32_t il0 = d.traces[0].inline_number, xl0 = d.traces[0].crossline_number;
  for (const Trace& t : d.traces)
    il0 = std::min(il0, t.inline_number), xl0 = std::min(xl0, t.crossline_number);
  std::vector<std::size_t> column(columns);
  std::vector<bool> seen(columns, false);
  bool by_numbers = true;
  for (std::size_t k = 0; k < columns && by_numbers; ++k) {
    const long long y = (long long)d.traces[k].inline_number - il0,
                    x = (long long)d.traces[k].crossline_number - xl0;
    if (x < 0 || x >= nx || y < 0 || y >= ny || seen[std::size_t(y * nx + x)]) {
      by_numbers = false;
      break;
    }
    seen[std::size_t(y * nx + x)] = true;
    column[k] = std::size_t(y * nx + x);
  }
  std::vector<double> v(columns * depth);
  for (std::size_t k = 0; k < columns; ++k) {
    const std::size_t c = by_numbers ? column[k] : k;
    const std::span<const double> t = d.trace(k);
    for (std::size_t z = 0; z < depth; ++z) v[z * columns + c] = t[z];
  }
  return v;
}

template Dataset<float> read(const std::string&);
template Dataset<double> read(const std::string&);

}  // namespace strata::io::segy
