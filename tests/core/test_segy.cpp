// SEG-Y files: every format written and read back (both byte orders, float and double), the
// writer's refusals and its atomicity, coordinate scalars; and the reader on files built
// here byte by byte (big-endian helpers of this file, not the library's), from rev 0 with
// traces of different lengths to rev 2 with extended headers, and one hostile file per
// refusal, each message checked for the file, the byte offset and the problem.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "io/segy.hpp"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::io::segy;

namespace {

class SegyTest : public ::testing::Test {
 public:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("strata_segy_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  // Nothing in the directory but these names (no temporaries left behind).
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Big-endian integers into a byte string (offsets 0-based).
void be(std::string& s, std::size_t at, int bytes, std::uint64_t v) {
  for (int i = 0; i < bytes; ++i)
    s[at + std::size_t(i)] = char((v >> (8 * (bytes - 1 - i))) & 0xff);
}

// A message must name the file, a byte offset and hold every fragment.
void expect_refused(const std::string& path, const std::string& message,
                    std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(message.empty()) << "no strata::Error for " << path;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("byte offset"), std::string::npos) << message;
  for (const char* f : fragments)
    EXPECT_NE(message.find(f), std::string::npos) << "missing '" << f << "' in: " << message;
}

std::string read_error(const std::string& path) {
  return test::error_of([&] { read<float>(path); });
}

// A shot line: receivers every 12.5 m along x at 7.25 m depth, the source at 1.5 m depth.
std::vector<Trace> shot_line(int n) {
  std::vector<Trace> t(std::size_t(n), Trace{});
  for (int i = 0; i < n; ++i) {
    Trace& r = t[std::size_t(i)];
    r.sequence_line = r.sequence_file = r.record_trace = i + 1;
    r.field_record = 3;
    r.cdp = 100 + i;
    r.offset = -37 + 12 * i;
    r.source_x = 500.25, r.source_y = -320.5, r.source_depth = 1.5, r.source_elevation = 0;
    r.group_x = 12.5 * i - 0.01, r.group_y = 320.07, r.group_elevation = -7.25;
  }
  return t;
}

void expect_same_headers(const std::vector<Trace>& got, const std::vector<Trace>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const Trace &g = got[i], &w = want[i];
    EXPECT_EQ(g.sequence_line, w.sequence_line);
    EXPECT_EQ(g.sequence_file, w.sequence_file);
    EXPECT_EQ(g.field_record, w.field_record);
    EXPECT_EQ(g.record_trace, w.record_trace);
    EXPECT_EQ(g.cdp, w.cdp);
    EXPECT_EQ(g.offset, w.offset);
    // Centimetres (scalar -100) hold these exactly; reading divides the stored integer by 100.
    for (auto [a, b] : {std::pair{g.source_x, w.source_x},
                        {g.source_y, w.source_y},
                        {g.group_x, w.group_x},
                        {g.group_y, w.group_y},
                        {g.source_depth, w.source_depth},
                        {g.source_elevation, w.source_elevation},
                        {g.group_elevation, w.group_elevation}})
      EXPECT_EQ(a, std::round(b * 100) / 100) << "trace " << i;
    EXPECT_EQ(g.coordinate_scalar, -100);
    EXPECT_EQ(g.elevation_scalar, -100);
  }
}

// Seeded samples that each format holds: integers in range for the integer formats, awkward
// floats (zeros, denormals, extremes, infinities, NaN) for IEEE, finite values for IBM.
template <class T>
std::vector<T> samples_for(Format f, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  const auto integers = [&](double lo, double hi) {
    std::uniform_int_distribution<long long> d((long long)lo, (long long)hi);
    for (auto& x : v) x = T(d(rng));
    v[0] = T(lo), v[1] = T(hi), v[2] = T(0);
  };
  using L = std::numeric_limits<T>;
  std::uniform_real_distribution<double> d(-1e4, 1e4);
  switch (f) {
    case Format::int8:
      integers(-128, 127);
      break;
    case Format::int16:
      integers(-32768, 32767);
      break;
    case Format::int32:  // float holds 24 bits: stay where every integer is exact in T
      integers(sizeof(T) == 4 ? -(1 << 24) : -2147483648.0,
               sizeof(T) == 4 ? (1 << 24) : 2147483647.0);
      break;
    case Format::ibm32:  // float's extremes, or IBM's own for double
      for (auto& x : v) x = T(d(rng));
      v[0] = T(-0.0), v[1] = L::min(), v[2] = L::max(), v[3] = L::lowest(), v[4] = T(0.1);
      if (sizeof(T) == 8) v[1] = T(std::ldexp(1.0, -280)), v[2] = T(7e75), v[3] = T(-7e75);
      break;
    default:
      for (auto& x : v) x = T(d(rng));
      v[0] = T(-0.0), v[1] = L::denorm_min(), v[2] = L::max(), v[3] = L::lowest(),
      v[4] = L::infinity(), v[5] = -L::infinity(), v[6] = L::quiet_NaN(), v[7] = L::min() / 3;
  }
  return v;
}

template <class T>
void round_trip(const SegyTest& t, Format format, Endian endian) {
  SCOPED_TRACE(to_string(format) + (endian == Endian::big ? ", big-endian" : ", little-endian"));
  const std::string path = t.file("a.sgy");
  const int n = 5, ns = 37;
  const std::vector<Trace> traces = shot_line(n);
  const std::vector<T> data =
      samples_for<T>(format, std::size_t(n * ns), std::uint64_t(int(format) * 7 + 1));
  WriteOptions o;
  o.format = format;
  o.endian = endian;
  o.text = {"a round trip", "of 5 traces"};
  write<T>(path, traces, data, 0.002, o);
  EXPECT_EQ(slurp(path).size(),
            3600u + std::size_t(n) * (240u + std::size_t(ns * bytes_per_sample(format))));

  const Dataset<T> d = read<T>(path);
  const Header& h = d.header;
  EXPECT_EQ(h.format, format);
  EXPECT_EQ(h.endian, endian);
  EXPECT_EQ(h.revision_major, format == Format::ieee64 || endian == Endian::little ? 2 : 1);
  EXPECT_TRUE(h.fixed_length);
  EXPECT_EQ(h.samples_per_trace, ns);
  EXPECT_EQ(h.sample_interval_us, 2000);
  EXPECT_EQ(h.measurement_system, 1);
  EXPECT_EQ(h.text_encoding, TextEncoding::ebcdic);
  EXPECT_EQ(h.first_trace, 3600u);
  EXPECT_NE(h.text.find("C 1 SEG-Y rev"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("written by strata"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("C 4 a round trip"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("C40 END TEXTUAL HEADER"), std::string::npos) << h.text;
  expect_same_headers(d.traces, traces);
  for (const Trace& tr : d.traces) {
    EXPECT_EQ(tr.ns, ns);
    EXPECT_EQ(tr.dt_us, 2000);
  }
  ASSERT_EQ(d.samples.size(), data.size());
  ASSERT_EQ(d.starts.size(), std::size_t(n + 1));
  EXPECT_EQ(d.trace(2).data(), d.samples.data() + 2 * ns);
  for (std::size_t i = 0; i < data.size(); ++i) {
    const T want = format == Format::ibm32 ? T(ibm_to_double(*to_ibm(double(data[i])))) : data[i];
    if (format == Format::ibm32) {  // IBM keeps 21 significant bits at least
      ASSERT_LE(std::fabs(double(want) - double(data[i])),
                std::ldexp(std::fabs(double(data[i])), -21))
          << i;
    }
    if (format == Format::ieee32 && sizeof(T) == 8 && std::isfinite(data[i])) {
      ASSERT_EQ(d.samples[i], T(float(data[i]))) << i;  // written as float32
    } else if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(d.samples[i])) << i;
    } else {
      ASSERT_EQ(std::memcmp(&d.samples[i], &want, sizeof want), 0)
          << i << ": " << d.samples[i] << " vs " << want;
    }
  }
}

const Format kFormats[] = {Format::ibm32,  Format::int32,  Format::int16,
                           Format::ieee32, Format::ieee64, Format::int8};

}  // namespace

// ---- round trips -----------------------------------------------------------------------------

TEST_F(SegyTest, RoundTripEveryFormatFloat) {
  for (Format f : kFormats)
    for (Endian e : {Endian::big, Endian::little}) round_trip<float>(*this, f, e);
}

TEST_F(SegyTest, RoundTripEveryFormatDouble) {
  for (Format f : kFormats)
    for (Endian e : {Endian::big, Endian::little}) round_trip<double>(*this, f, e);
}

TEST_F(SegyTest, ReadsAsDoubleExactlyWhatWasWrittenAsFloat) {
  const std::string path = file("a.sgy");
  const std::vector<float> data = samples_for<float>(Format::ieee32, 60, 3);
  write<float>(path, shot_line(3), data, 0.004);
  const Dataset<double> d = read<double>(path);
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!std::isnan(data[i])) {
      ASSERT_EQ(d.samples[i], double(data[i]));
    }
}

TEST_F(SegyTest, IbmBitsOnDiskAreTheHandComputedOnes) {
  const std::string path = file("a.sgy");
  const std::vector<float> data = {-118.625f, 100.0f, 0.0f, 1.0f};
  WriteOptions o;
  o.format = Format::ibm32;
  write<float>(path, shot_line(1), data, 0.001, o);
  const std::string bytes = slurp(path);
  ASSERT_EQ(bytes.size(), 3600u + 240u + 16u);
  const std::string want("\xC2\x76\xA0\x00\x42\x64\x00\x00\x00\x00\x00\x00\x41\x10\x00\x00", 16);
  EXPECT_EQ(bytes.substr(3840), want);
  EXPECT_EQ(bytes[3224], 0);  // format code 1, big-endian
  EXPECT_EQ(bytes[3225], 1);
}

// ---- the writer's rules ----------------------------------------------------------------------

TEST_F(SegyTest, CoordinateScalarsFollowTheRule) {
  const std::string path = file("a.sgy");
  std::vector<Trace> t = shot_line(2);
  // 30 000 km does not fit in int32 as centimetres (21 474 836.47 m): decimetres do.
  t[1].group_x = 3.0e7 + 0.3;
  t[0].source_depth = 1.234;  // rounds to the centimetre
  write<float>(path, t, std::vector<float>(8, 1.0f), 0.001);
  Dataset<float> d = read<float>(path);
  EXPECT_EQ(d.traces[0].coordinate_scalar, -10);
  EXPECT_EQ(d.traces[1].group_x, 3.0e7 + 0.3);
  EXPECT_EQ(d.traces[0].group_x, 0.0);  // -0.01 m at decimetres
  EXPECT_EQ(d.traces[0].elevation_scalar, -100);
  EXPECT_EQ(d.traces[0].source_depth, 1.23);
  // 3e10 m: hundreds of metres (scalar 100) are the finest that fit.
  t[1].group_x = -3.0e10;
  write<float>(path, t, std::vector<float>(8, 1.0f), 0.001);
  d = read<float>(path);
  EXPECT_EQ(d.traces[1].coordinate_scalar, 100);  // 3e8 fits in int32, 3e10 m / 10 does not
  EXPECT_EQ(d.traces[1].group_x, -3.0e10);
  const std::string bytes = slurp(path);
  EXPECT_EQ(bytes.substr(3600 + 240 + 16 + 70, 2),
            std::string("\x00\x64", 2));  // trace 1's scalar, 100
  EXPECT_EQ(bytes.substr(3600 + 240 + 16 + 80, 4),
            std::string("\xEE\x1E\x5D\x00", 4));  // -3e8 big-endian
  // Beyond int32 times 10000 m, or not finite: refused.
  t[1].group_x = 3e14;
  EXPECT_NE(test::error_of([&] {
              write<float>(path, t, std::vector<float>(8, 1.0f), 0.001);
            }).find("coordinate"),
            std::string::npos);
  t[1].group_x = std::nan("");
  EXPECT_NE(test::error_of([&] {
              write<float>(path, t, std::vector<float>(8, 1.0f), 0.001);
            }).find("not finite"),
            std::string::npos);
}

TEST_F(SegyTest, SampleIntervalMustBeWholeMicroseconds) {
  const std::string path = file("a.sgy");
  const auto attempt = [&](double dt) {
    return test::error_of(
        [&] { write<float>(path, shot_line(1), std::vector<float>(4, 1.0f), dt); });
  };
  EXPECT_EQ(attempt(0.001), "");
  EXPECT_EQ(read<float>(path).header.sample_interval_us, 1000);
  EXPECT_EQ(attempt(0.001 * (1 + 5e-7)), "");  // within 1e-6 relative: 1000 us
  EXPECT_EQ(read<float>(path).header.sample_interval_us, 1000);
  EXPECT_EQ(attempt(0.065535), "");
  EXPECT_EQ(attempt(1e-6), "");
  for (double dt : {0.0012345, 0.065536, 0.07, 4e-7, 0.0, -0.001, std::nan("")}) {
    const std::string m = attempt(dt);
    EXPECT_NE(m.find("whole number of microseconds from 1 to 65535"), std::string::npos)
        << dt << ": " << m;
    EXPECT_NE(m.find(path), std::string::npos) << m;
  }
}

TEST_F(SegyTest, WriterRefusesWhatSegyCannotHold) {
  const std::string path = file("a.sgy");
  const auto m = [&](auto&& f) { return test::error_of(f); };
  EXPECT_NE(m([&] { write<float>(path, {}, std::vector<float>{}, 0.001); }).find("no traces"),
            std::string::npos);
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(2), std::vector<float>(7), 0.001);
            }).find("not a whole number per trace"),
            std::string::npos);
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>(65536), 0.001);
            }).find("65536 samples per trace"),
            std::string::npos);
  EXPECT_EQ(m([&] { write<float>(path, shot_line(1), std::vector<float>(65535), 0.001); }), "");
  WriteOptions o;
  o.format = Format::ibm32;
  for (float bad :
       {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> v(8, 1.0f);
    v[6] = bad;
    const std::string msg = m([&] { write<float>(path, shot_line(2), v, 0.001, o); });
    EXPECT_NE(msg.find("sample 2 of trace 1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("IBM"), std::string::npos) << msg;
  }
  std::vector<double> huge(4, 1e76);
  EXPECT_NE(m([&] { write<double>(path, shot_line(1), huge, 0.001, o); }).find("cannot hold"),
            std::string::npos);
  o.format = Format::int16;
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>{1, 2.5f}, 0.001, o);
            }).find("whole number"),
            std::string::npos);
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>{1, 40000}, 0.001, o);
            }).find("cannot hold"),
            std::string::npos);
  o.format = Format(4);
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>(2), 0.001, o);
            }).find("format code 4"),
            std::string::npos);
  o.format = Format::ieee32;
  o.text = std::vector<std::string>(36, "x");
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>(2), 0.001, o);
            }).find("at most 35 lines"),
            std::string::npos);
  o.text = {std::string(77, 'x')};
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>(2), 0.001, o);
            }).find("at most 76"),
            std::string::npos);
  o.text = {"tab\there"};
  EXPECT_NE(m([&] {
              write<float>(path, shot_line(1), std::vector<float>(2), 0.001, o);
            }).find("printable ASCII"),
            std::string::npos);
  for (const char* unportable : {"[x]", "a!", "^", "a|b"}) {
    o.text = {unportable};
    EXPECT_NE(m([&] {
                write<float>(path, shot_line(1), std::vector<float>(2), 0.001, o);
              }).find("code pages 037 and 500"),
              std::string::npos)
        << unportable;
  }
}

// A refused write leaves the file that was there, and no temporary beside it.
TEST_F(SegyTest, FailedWriteLeavesExistingFileIntact) {
  const std::string path = file("a.sgy");
  put(path, "previous contents");
  std::vector<float> v(40, 1.0f);
  v[39] = std::numeric_limits<float>::infinity();  // refused in the last trace, mid-file
  WriteOptions o;
  o.format = Format::ibm32;
  EXPECT_NE(test::error_of([&] { write<float>(path, shot_line(4), v, 0.001, o); }), "");
  EXPECT_EQ(slurp(path), "previous contents");
  EXPECT_EQ(listing(), std::vector<std::string>{"a.sgy"});
  // A directory where the file should go: refused, left as it was.
  fs::create_directories(file("d.sgy"));
  put(file("d.sgy/inside"), "x");
  const std::string msg = test::error_of(
      [&] { write<float>(file("d.sgy"), shot_line(1), std::vector<float>(2), 0.001); });
  EXPECT_NE(msg.find("d.sgy"), std::string::npos) << msg;
  EXPECT_TRUE(fs::is_directory(file("d.sgy")));
  EXPECT_EQ(slurp(file("d.sgy/inside")), "x");
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.sgy", "d.sgy"}));
}

// ---- files built by hand ---------------------------------------------------------------------

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

TEST_F(SegyTest, HandMadeRev1FileReads) {
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
TEST_F(SegyTest, Rev0TracesOfDifferentLengths) {
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

TEST_F(SegyTest, ExtendedTextualHeadersAreSkipped) {
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

TEST_F(SegyTest, AsciiTextualHeaderIsDetected) {
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
TEST_F(SegyTest, LittleEndianDetectedWithoutTheConstant) {
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

TEST_F(SegyTest, ShorterThanTheHeaders) {
  const std::string path = file("short.sgy");
  put(path, std::string(3599, char(0x40)));
  expect_refused(path, read_error(path), {"byte offset 3599", "3599 bytes long", "3600"});
  put(path, "");
  expect_refused(path, read_error(path), {"byte offset 0", "0 bytes long"});
}

TEST_F(SegyTest, TruncatedAndNonIntegralTraceData) {
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

TEST_F(SegyTest, ZeroSamplesPerTrace) {
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

TEST_F(SegyTest, UnknownAndUnsupportedFormatCodes) {
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
TEST_F(SegyTest, AbsurdSizesAreRefusedFromTheFileSize) {
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

TEST_F(SegyTest, FixedLengthTraceOfAnotherLength) {
  const std::string path = file("v.sgy");
  // Trace 1 says 3 samples where the binary header says 4: 4 + 4 + ... sizes still add up to
  // whole 248-byte traces when trace 2 is 5 long, but the file promised one length.
  put(path, hand_file(1, 3, 4, {4, 3, 5}));
  expect_refused(path, read_error(path),
                 {"byte offset 3962", "trace 1's header says 3 samples", "fixed-length"});
}

TEST_F(SegyTest, NotAFile) {
  const std::string path = file("none.sgy");
  const std::string m = read_error(path);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
  fs::create_directories(file("dir.sgy"));
  EXPECT_NE(read_error(file("dir.sgy")).find("dir.sgy"), std::string::npos);
}
