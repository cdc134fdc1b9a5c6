// The SEG-Y reader on files built here byte by byte (segy_files.hpp's big-endian helpers,
// not the library's): rev 0 with traces of different lengths, rev 1, rev 2 with extended
// textual headers, ASCII text, little-endian without rev 2's constant; and one hostile file
// per refusal, each message checked for the file, the byte offset and the problem.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "core/segy_files.hpp"
#include "io/segy.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io::segy;
using namespace strata::test::segy;

class SegyRead : public SegyTest {};

namespace {

// A big-endian file: EBCDIC spaces for the textual header, then the binary header with the
// given revision, format and samples per trace, then traces of int16 samples 0, 1, 2, ...
// offset by 100 * trace; `lengths` gives each trace's ns (its header's field; 0 holds ns).
std::string hand_file(int rev, int format, int ns, const std::vector<int>& lengths, int bps = 2) {
  std::string s(3600, '\0');
  for (int i = 0; i < 3200; ++i) s[std::size_t(i)] = char(0x40);
  const std::string first = "C 1 HAND";  // C 1 HAND in EBCDIC
  const unsigned char ebc[] = {0xC3, 0x40, 0xF1, 0x40, 0xC8, 0xC1, 0xD5, 0xC4};
  for (std::size_t i = 0; i < first.size(); ++i) s[i] = char(ebc[i]);
  be(s, 3216, 2, 4000);
  be(s, 3220, 2, std::uint64_t(ns));
  be(s, 3224, 2, std::uint64_t(format));
  be(s, 3500, 2, std::uint64_t(rev) << 8);
  if (rev >= 1) be(s, 3502, 2, 1);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    std::string h(240, '\0');
    be(h, 0, 4, k + 1);
    be(h, 114, 2, std::uint64_t(lengths[k]));
    be(h, 116, 2, 4000);
    const int count = lengths[k] ? lengths[k] : ns;
    std::string data(std::size_t(count * bps), '\0');
    for (int i = 0; i < count; ++i)
      be(data, std::size_t(i * bps), bps, std::uint64_t(100 * k + std::size_t(i)));
    s += h + data;
  }
  return s;
}

}  // namespace

TEST_F(SegyRead, HandMadeRev1FileReads) {
  const std::string path = file("h.sgy");
  put(path, hand_file(1, 3, 4, {4, 4, 0}));  // the last trace's ns is 0: the binary header's
  const Dataset<double> d = read<double>(path);
  EXPECT_EQ(d.header.revision_major, 1);
  EXPECT_EQ(d.header.text.substr(0, 8), "C 1 HAND");
  EXPECT_EQ(d.header.text.size(), 40u * 81 - 1);  // 40 lines of 80, joined by '\n'
  EXPECT_EQ(d.header.sample_interval_us, 4000);
  ASSERT_EQ(d.traces.size(), 3u);
  EXPECT_EQ(d.traces[2].ns, 4);
  EXPECT_EQ(d.samples, (std::vector<double>{0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203}));
}

// Rev 0 (no fixed-length flag): each trace as long as its header says.
TEST_F(SegyRead, Rev0TracesOfDifferentLengths) {
  const std::string path = file("h.sgy");
  put(path, hand_file(0, 3, 3, {3, 5, 1}));
  const Dataset<float> d = read<float>(path);
  EXPECT_FALSE(d.header.fixed_length);
  ASSERT_EQ(d.traces.size(), 3u);
  EXPECT_EQ(d.trace(0).size(), 3u);
  EXPECT_EQ(d.trace(1).size(), 5u);
  EXPECT_EQ(d.trace(2).size(), 1u);
  EXPECT_EQ(d.trace(1)[4], 104.0f);
  EXPECT_EQ(d.trace(2)[0], 200.0f);
}

TEST_F(SegyRead, ExtendedTextualHeadersAreSkipped) {
  const std::string path = file("h.sgy");
  std::string s = hand_file(1, 3, 2, {2});
  const std::string ext(3200 * 2, char(0x40));  // two records of EBCDIC spaces
  std::string fixed = s;
  be(fixed, 3504, 2, 2);
  put(path, fixed.substr(0, 3600) + ext + fixed.substr(3600));
  Dataset<float> d = read<float>(path);
  EXPECT_EQ(d.header.extended_text_headers, 2);
  EXPECT_EQ(d.header.first_trace, 3600u + 6400u);
  EXPECT_EQ(d.samples, (std::vector<float>{0, 1}));
  // A variable count (-1): the records up to the one holding ((SEG: EndText)), here in ASCII.
  std::string record(3200, ' ');
  record.replace(0, 16, "((SEG: EndText))");
  std::string variable = s;
  be(variable, 3504, 2, 0xffff);
  put(path, variable.substr(0, 3600) + ext + record + variable.substr(3600));
  d = read<float>(path);
  EXPECT_EQ(d.header.extended_text_headers, 3);
  EXPECT_EQ(d.samples, (std::vector<float>{0, 1}));
  // ...and without it, refused.
  put(path, variable.substr(0, 3600) + ext + variable.substr(3600));
  expect_refused(path, read_error(path), {"byte offset 3504", "-1", "EndText"});
  // More records than the file holds.
  be(variable, 3504, 2, 9);
  put(path, variable);
  expect_refused(path, read_error(path), {"byte offset 3504", "9 extended textual headers"});
}

TEST_F(SegyRead, AsciiTextualHeaderIsDetected) {
  const std::string path = file("a.sgy");
  write<float>(path, shot_line(2), std::vector<float>(6, 2.0f), 0.001);
  const std::string ebcdic_text = read<float>(path).header.text;
  std::string bytes = slurp(path);
  for (std::size_t i = 0, col = 0; i < ebcdic_text.size(); ++i)  // the same text, in ASCII
    if (ebcdic_text[i] != '\n') bytes[col++] = ebcdic_text[i];
  put(path, bytes);
  const Dataset<float> d = read<float>(path);
  EXPECT_EQ(d.header.text_encoding, TextEncoding::ascii);
  EXPECT_EQ(d.header.text, ebcdic_text);
}

// Little-endian without rev 2's byte-order constant: told by the format code.
TEST_F(SegyRead, LittleEndianDetectedWithoutTheConstant) {
  const std::string path = file("a.sgy");
  WriteOptions o;
  o.endian = Endian::little;
  o.format = Format::int16;
  const std::vector<float> v = {1, -2, 300, -32768, 5, 6};
  write<float>(path, shot_line(2), v, 0.001, o);
  std::string bytes = slurp(path);
  EXPECT_EQ(bytes.substr(3296, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(bytes.substr(3224, 2), std::string("\x03\x00", 2));
  bytes.replace(3296, 4, std::string(4, '\0'));
  put(path, bytes);
  const Dataset<float> d = read<float>(path);
  EXPECT_EQ(d.header.endian, Endian::little);
  EXPECT_EQ(d.samples, v);
  EXPECT_EQ(d.traces[1].group_x, 12.49);
}

// ---- hostile files ---------------------------------------------------------------------------

TEST_F(SegyRead, ShorterThanTheHeaders) {
  const std::string path = file("short.sgy");
  put(path, std::string(3599, char(0x40)));
  expect_refused(path, read_error(path), {"byte offset 3599", "3599 bytes long", "3600"});
  put(path, "");
  expect_refused(path, read_error(path), {"byte offset 0", "0 bytes long"});
}

TEST_F(SegyRead, TruncatedAndNonIntegralTraceData) {
  const std::string path = file("t.sgy");
  write<float>(path, shot_line(3), std::vector<float>(30, 1.0f), 0.001);  // 3 traces of 280 bytes
  const std::string whole = slurp(path);
  put(path, whole.substr(0, whole.size() - 10));
  expect_refused(
      path, read_error(path),
      {"byte offset 3600", "not a whole number of 280-byte traces", "2 traces and 270 bytes over"});
  put(path, whole + "1234567");
  expect_refused(path, read_error(path), {"byte offset 3600", "3 traces and 7 bytes over"});
  // Rev 0 (no fixed-length promise): the cut trace is named where it starts.
  std::string rev0 = whole.substr(0, whole.size() - 10);
  rev0[3500] = 0;
  put(path, rev0);
  expect_refused(
      path, read_error(path),
      {"byte offset 4160", "trace 2 is cut short", "40 bytes after its header, 30 remain"});
  put(path, rev0.substr(0, 4160 + 260));
  expect_refused(path, read_error(path), {"byte offset 4160", "trace 2 is cut short", "20 remain"});
  put(path, rev0.substr(0, 4160 + 200));
  expect_refused(path, read_error(path), {"byte offset 4160", "its 240-byte header has 200 bytes"});
}

TEST_F(SegyRead, ZeroSamplesPerTrace) {
  const std::string path = file("z.sgy");
  put(path, hand_file(1, 3, 0, {0, 0}));
  expect_refused(path, read_error(path),
                 {"byte offset 3220", "are 0", "first trace header", "3714"});
  put(path, hand_file(1, 3, 0, {}));
  expect_refused(path, read_error(path), {"byte offset 3220", "no trace header"});
  // 0 in the binary header, 2 in the first trace's: the trace's.
  put(path, hand_file(1, 3, 0, {2, 2}));
  EXPECT_EQ(read<float>(path).header.samples_per_trace, 2);
}

TEST_F(SegyRead, UnknownAndUnsupportedFormatCodes) {
  const std::string path = file("f.sgy");
  put(path, hand_file(1, 17, 2, {2}));  // 17 big-endian is 0x1100 = 4352 little-endian
  expect_refused(path, read_error(path),
                 {"byte offset 3224", "reads 17 big-endian and 4352 little-endian"});
  put(path, hand_file(1, 0, 2, {2}));
  expect_refused(path, read_error(path),
                 {"byte offset 3224", "reads 0 big-endian and 0 little-endian"});
  put(path, hand_file(1, 4, 2, {2}));
  expect_refused(path, read_error(path),
                 {"byte offset 3224",
                  "sample format 4 (4-byte fixed point with gain (obsolete)) is not supported"});
  // With rev 2's byte-order constant the order is known: the code alone is wrong.
  std::string s = hand_file(2, 99, 2, {2});
  be(s, 3296, 4, 0x01020304);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3224", "is 99, not a SEG-Y format code"});
  be(s, 3296, 4, 0x02010403);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3296", "pairwise-swapped"});
}

// A header claiming 65535 samples in a file of a few hundred bytes: refused from the sizes,
// before anything of that size is allocated or read.
TEST_F(SegyRead, AbsurdSizesAreRefusedFromTheFileSize) {
  const std::string path = file("absurd.sgy");
  std::string s = hand_file(1, 5, 65535, {});
  s += std::string(240, '\0');
  be(s, 3600 + 114, 2, 65535);
  put(path, s);
  expect_refused(path, read_error(path),
                 {"byte offset 3600", "not a whole number of 262380-byte traces",
                  "0 traces and 240 bytes over"});
  s[3500] = 0;  // rev 0: walked trace by trace
  put(path, s);
  expect_refused(path, read_error(path),
                 {"byte offset 3600", "trace 0 is cut short", "65535 samples need 262140 bytes"});
  // Rev 2's 32-bit samples per trace: 2^31 - 1 of 8-byte samples, and beyond what is read.
  s = hand_file(2, 6, 0, {});
  be(s, 3268, 4, 0x7fffffffu);
  s += std::string(300, '\0');
  put(path, s);
  expect_refused(path, read_error(path),
                 {"byte offset 3600", "not a whole number of 17179869416-byte traces"});
  be(s, 3268, 4, 0x80000000u);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3268", "2147483648 samples per trace"});
  // Rev 2 trailer records and first-trace offsets beyond the file.
  s = hand_file(2, 3, 2, {2});
  be(s, 3528, 4, 1000);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3528", "1000 data trailer records"});
  s = hand_file(2, 3, 2, {2});
  be(s, 3520, 8, 1ull << 40);
  put(path, s);
  expect_refused(path, read_error(path),
                 {"byte offset 3520", "puts the first trace at byte 1099511627776"});
  s = hand_file(2, 3, 2, {2});
  be(s, 3512, 8, 5);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3512", "says 5 traces; the file holds 1"});
  s = hand_file(2, 3, 2, {2});
  be(s, 3506, 4, 1);
  put(path, s);
  expect_refused(path, read_error(path), {"byte offset 3506", "additional 240-byte trace headers"});
}

TEST_F(SegyRead, FixedLengthTraceOfAnotherLength) {
  const std::string path = file("v.sgy");
  // Trace 1 says 3 samples where the binary header says 4: 4 + 4 + ... sizes still add up to
  // whole 248-byte traces when trace 2 is 5 long, but the file promised one length.
  put(path, hand_file(1, 3, 4, {4, 3, 5}));
  expect_refused(path, read_error(path),
                 {"byte offset 3962", "trace 1's header says 3 samples", "fixed-length"});
}

TEST_F(SegyRead, NotAFile) {
  const std::string path = file("none.sgy");
  const std::string m = read_error(path);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
  fs::create_directories(file("dir.sgy"));
  EXPECT_NE(read_error(file("dir.sgy")).find("dir.sgy"), std::string::npos);
}
