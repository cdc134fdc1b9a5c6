// SEG-Y written and read back: every format (both byte orders, float and double), the IBM
// bits on disk, the writer's refusals (dt, sample counts, coordinates, values a format cannot
// hold, textual header lines), its atomicity, and the coordinate scalars' rule.
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

namespace {

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

// A 3D field as a depth volume: one trace per (x, y) column, y outer, the samples down z; the
// column's inline, crossline and CDP position; the depth step in millimetres; refusals first.
TEST_F(SegyTest, VolumeIsOneTracePerColumnWithItsPlace) {
  const int nx = 3, ny = 2, nz = 5;
  const double h = 12.5;
  std::vector<double> v(std::size_t(nx * ny * nz));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25 * double(i) - 3.0;  // exact in float
  const std::string path = file("v.sgy");
  write_volume(path, v, nx, ny, nz, h, "a test volume of u^2 [m] | !");  // what EBCDIC may not hold
  const Dataset<double> d = read<double>(path);
  ASSERT_EQ(d.traces.size(), std::size_t(nx * ny));
  EXPECT_EQ(d.header.sample_interval_us, 12500);  // 12.5 m in millimetres
  EXPECT_NE(d.header.text.find("a test volume of u?2 ?m? ? ?"), std::string::npos) << d.header.text;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const std::size_t k = std::size_t(y * nx + x);
      const Trace& t = d.traces[k];
      EXPECT_EQ(t.inline_number, y + 1);
      EXPECT_EQ(t.crossline_number, x + 1);
      EXPECT_EQ(t.cdp, int(k) + 1);
      EXPECT_DOUBLE_EQ(t.cdp_x, x * h);
      EXPECT_DOUBLE_EQ(t.cdp_y, y * h);
      ASSERT_EQ(d.trace(k).size(), std::size_t(nz));
      for (int z = 0; z < nz; ++z)
        EXPECT_EQ(d.trace(k)[std::size_t(z)], v[std::size_t((z * ny + y) * nx + x)]) << x << y << z;
    }
  EXPECT_EQ(volume_problem(nz, h), "");
  EXPECT_NE(volume_problem(65536, h).find("65536 points down"), std::string::npos);
  EXPECT_NE(volume_problem(nz, 5.0005).find("not a whole number of millimetres"),
            std::string::npos);
  const std::string bad = file("bad.sgy");
  const std::string m = test::error_of([&] { write_volume(bad, v, nx, ny, nz, 5.0005, "x"); });
  EXPECT_NE(m.find("millimetres"), std::string::npos) << m;
  EXPECT_FALSE(std::filesystem::exists(bad));
}

// A depth volume read back: write_volume's own file, the same traces shuffled (placed by their
// inline and crossline numbers), traces without numbers (file order), and what is refused.
TEST_F(SegyTest, VolumeReadsBackWhereverItsTracesSit) {
  const int nx = 4, ny = 3, nz = 6;
  const double h = 7.5;
  std::vector<double> v(std::size_t(nx * ny * nz));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1500.0 + 0.5 * double(i);  // exact in float
  const std::string path = file("v.sgy");
  write_volume(path, v, nx, ny, nz, h, "velocity");
  EXPECT_EQ(read_volume(path, nx, ny, nz, h), v);

  // Shuffled, inline and crossline starting at 100 and 7: placed by the numbers.
  const Dataset<double> d = read<double>(path);
  std::vector<std::size_t> order(d.traces.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = (k * 5 + 3) % order.size();
  std::vector<Trace> traces;
  std::vector<float> samples;
  for (std::size_t k : order) {
    Trace t = d.traces[k];
    t.inline_number += 99;
    t.crossline_number += 6;
    traces.push_back(t);
    for (double x : d.trace(k)) samples.push_back(float(x));
  }
  const std::string shuffled = file("shuffled.sgy");
  write<float>(shuffled, traces, samples, h * 1e-3);
  EXPECT_EQ(read_volume(shuffled, nx, ny, nz, h), v);

  // No numbers: file order, y outer.
  for (Trace& t : traces) t.inline_number = t.crossline_number = 0;
  std::vector<float> in_order;
  for (std::size_t k = 0; k < d.traces.size(); ++k)
    for (double x : d.trace(k)) in_order.push_back(float(x));
  const std::string plain = file("plain.sgy");
  write<float>(plain, traces, in_order, h * 1e-3);
  EXPECT_EQ(read_volume(plain, nx, ny, nz, h), v);

  const auto m = [&](auto&& f) { return test::error_of(f); };
  EXPECT_NE(m([&] { read_volume(path, nx + 1, ny, nz, h); }).find("15 columns"), std::string::npos);
  EXPECT_NE(m([&] { read_volume(path, nx, ny, nz + 1, h); }).find("7 points down"),
            std::string::npos);
  EXPECT_NE(m([&] { read_volume(path, nx, ny, nz, 10.0); }).find("10000 mm"), std::string::npos);
}
