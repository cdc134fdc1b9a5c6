// .npy reader/writer: bitwise round trips (signed zeros, denormals, infinities, NaN),
// f32<->f64 conversion, hand-crafted headers of every version and style numpy may write,
// and one test per malformed file, each checking that the message names file and problem.
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
#include <vector>

#include <gtest/gtest.h>

#include "common/scratch_dir.hpp"
#include "strata/npy.hpp"

namespace fs = std::filesystem;
using namespace strata;
using Shape = std::vector<std::size_t>;

namespace {

class NpyTest : public test::ScratchDirTest {
public:
  NpyTest() : ScratchDirTest("strata_npy") {}
};

// Seeded values led by the awkward ones: signed zeros, denormals, infinities, extremes, NaN.
template <class T>
std::vector<T> tricky_values(std::size_t n, std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  const T specials[] = {T(-0.0),          T(0.0),           L::denorm_min(), -L::denorm_min(),
                        L::min() / T(3),  L::infinity(),    -L::infinity(),  L::max(),
                        L::lowest(),      L::quiet_NaN(),   L::min(),        T(1)};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1e3, 1e3);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = i < std::size(specials) ? specials[i] : T(d(rng));
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

std::size_t count_of(const Shape& s) {
  std::size_t n = 1;
  for (std::size_t d : s) n *= d;
  return n;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// A hand-made .npy: magic, version, length field (2 bytes for 1.0, else 4), the dict padded
// with spaces to `align` (0: no padding) plus '\n', then the payload.
std::string npy_bytes(int major, int minor, const std::string& dict, const std::string& payload,
                      std::size_t align = 64) {
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  if (align) header.append((align - (8 + len_bytes + dict.size() + 1) % align) % align, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(minor);
  for (std::size_t i = 0; i < len_bytes; ++i) out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + payload;
}

std::string dict_for(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

// Calls f, which must throw strata::Error whose message names `path` and holds every
// fragment.
template <class F>
void expect_error(const std::string& path, F&& f, std::initializer_list<const char*> fragments) {
  try {
    f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << "message does not name the file: " << msg;
    for (const char* frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "missing '" << frag << "' in: " << msg;
    return;
  }
  ADD_FAILURE() << "no strata::Error for " << path;
}

// A file with the given header and payload must be rejected by npy_inspect and npy_read.
void expect_bad_file(const std::string& path, const std::string& bytes,
                     std::initializer_list<const char*> fragments) {
  put(path, bytes);
  expect_error(path, [&] { npy_inspect(path); }, fragments);
  Shape shape;
  expect_error(path, [&] { npy_read<double>(path, shape); }, fragments);
}

const Shape kShapes[] = {{1, 1, 1}, {2, 3, 5}, {7, 1, 33}, {17}, {4, 9}, {}, {0}, {3, 0, 2}};

}  // namespace

// ---- round trips -----------------------------------------------------------------------

template <class T>
void round_trip_all_shapes(const NpyTest& t, const std::string& name) {
  std::uint64_t seed = 1;
  for (const Shape& shape : kShapes) {
    const std::string path = t.file(name);
    const std::vector<T> data = tricky_values<T>(count_of(shape), seed++);
    npy_write<T>(path, data, shape);
    const NpyInfo info = npy_inspect(path);
    EXPECT_EQ(info.dtype, precision_of<T>);
    EXPECT_EQ(info.shape, shape);
    EXPECT_EQ(info.data_offset % 64, 0u);
    Shape got_shape{99};
    const std::vector<T> got = npy_read<T>(path, got_shape);
    EXPECT_EQ(got_shape, shape);
    EXPECT_TRUE(same_bits(got, data)) << "shape of rank " << shape.size();
  }
}

TEST_F(NpyTest, RoundTripFloat32IsBitwise) { round_trip_all_shapes<float>(*this, "a.npy"); }
TEST_F(NpyTest, RoundTripFloat64IsBitwise) { round_trip_all_shapes<double>(*this, "a.npy"); }

TEST_F(NpyTest, ReadingConvertsBetweenPrecisions) {
  const Shape shape{3, 4, 5};
  const std::string path = file("a.npy");
  const auto f32 = tricky_values<float>(60, 7);
  npy_write<float>(path, f32, shape);
  Shape s;
  const std::vector<double> wide = npy_read<double>(path, s);
  ASSERT_EQ(wide.size(), f32.size());
  for (std::size_t i = 0; i < f32.size(); ++i) {
    if (std::isnan(f32[i])) {
      EXPECT_TRUE(std::isnan(wide[i]));
    } else {
      EXPECT_EQ(std::signbit(wide[i]), std::signbit(f32[i]));
      EXPECT_EQ(wide[i], double(f32[i]));
    }
  }
  auto f64 = tricky_values<double>(60, 8);
  f64[0] = 1e300;  // beyond float: becomes +inf
  npy_write<double>(path, f64, shape);
  const std::vector<float> narrow = npy_read<float>(path, s);
  for (std::size_t i = 0; i < f64.size(); ++i) {
    const float want = static_cast<float>(f64[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(narrow[i]));
    } else {
      EXPECT_EQ(std::memcmp(&narrow[i], &want, sizeof want), 0) << f64[i];
    }
  }
  EXPECT_EQ(narrow[0], std::numeric_limits<float>::infinity());
}

TEST_F(NpyTest, WrittenHeaderIsNumpyStyleVersion1) {
  const std::string path = file("a.npy");
  const std::vector<float> data(30, 1.5f);
  npy_write<float>(path, data, Shape{2, 3, 5});
  const std::string bytes = slurp(path);
  ASSERT_EQ(bytes.size(), 128u + 120u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8, 118u);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 5), }";
  EXPECT_EQ(bytes.substr(10, dict.size()), dict);
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.find_first_not_of(' ', 10 + dict.size()), 127u);
  EXPECT_EQ(npy_inspect(path).data_offset, 128u);
}

TEST_F(NpyTest, HugeHeaderIsWrittenAsVersion2) {
  const std::string path = file("a.npy");
  const Shape shape(25000, 1);  // "1, " x 25000 does not fit a 64 KiB header
  const std::vector<double> data{-2.5};
  npy_write<double>(path, data, shape);
  const std::string bytes = slurp(path);
  EXPECT_EQ(bytes[6], '\x02');
  const NpyInfo info = npy_inspect(path);
  EXPECT_GT(info.data_offset, 65535u);
  EXPECT_EQ(info.data_offset % 64, 0u);
  Shape got_shape;
  EXPECT_EQ(npy_read<double>(path, got_shape), data);
  EXPECT_EQ(got_shape, shape);
}

TEST_F(NpyTest, FieldRoundTripKeepsXFastest) {
  const Extent n{5, 3, 2};
  Field<double> f(n, 4);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) f(x, y, z) = x + 10.0 * y + 100.0 * z + 0.125;
  const std::string path = file("f.npy");
  npy_write_field(path, f);
  EXPECT_EQ(npy_inspect(path).shape, (Shape{2, 3, 5}));

  Shape shape;
  const std::vector<double> flat = npy_read<double>(path, shape);
  Extent e;
  const std::vector<float> flat32 = npy_read_3d<float>(path, e);
  EXPECT_EQ(e, n);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) {
        const std::size_t i = (std::size_t(z) * n.ny + y) * n.nx + x;
        EXPECT_EQ(flat[i], f(x, y, z));
        EXPECT_EQ(flat32[i], float(f(x, y, z)));
      }

  for (int ghost : {0, 2, 4}) {
    const Field<double> g = npy_read_field<double>(path, ghost);
    EXPECT_EQ(g.ghost(), ghost);
    ASSERT_EQ(g.extent(), n);
    const Field<float> g32 = npy_read_field<float>(path, ghost);
    for (int z = 0; z < n.nz; ++z)
      for (int y = 0; y < n.ny; ++y)
        for (int x = 0; x < n.nx; ++x) {
          EXPECT_EQ(g(x, y, z), f(x, y, z));
          EXPECT_EQ(g32(x, y, z), float(f(x, y, z)));
        }
  }
}

TEST_F(NpyTest, FieldRoundTripFloat32Bitwise) {
  const Extent n{33, 7, 1};
  const std::vector<float> values = tricky_values<float>(n.points(), 3);
  Field<float> f(n, 1);
  f.load_interior(values);
  const std::string path = file("f.npy");
  npy_write_field(path, f);
  Extent e;
  EXPECT_TRUE(same_bits(npy_read_3d<float>(path, e), values));
  const Field<float> g = npy_read_field<float>(path);
  std::vector<float> back(n.points());
  g.store_interior(back);
  EXPECT_TRUE(same_bits(back, values));
}

// ---- header variants numpy (or another writer) may produce ----------------------------

TEST_F(NpyTest, ReadsHeaderVariants) {
  const std::vector<double> d6{1, -2, 3.5, -0.0, 5e-310, 6};
  const std::vector<float> f5{1, 2, 3, 4, 5};
  const std::vector<double> f5_wide(f5.begin(), f5.end());
  const std::string dict23 = dict_for("<f8", "(2, 3)");
  struct Case {
    const char* what;
    std::string bytes;
    Shape shape;
    const std::vector<double>& want;
  };
  const Case cases[] = {
      {"version 2.0", npy_bytes(2, 0, dict23, raw(d6)), {2, 3}, d6},
      {"version 3.0", npy_bytes(3, 0, dict23, raw(d6)), {2, 3}, d6},
      {"keys reordered, no trailing comma",
       npy_bytes(1, 0, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}", raw(d6)),
       {2, 3}, d6},
      {"extra spaces and trailing commas",
       npy_bytes(1, 0, "{  'fortran_order' :False ,'shape':( 2 ,3 , ) ,\t'descr':'<f8' ,  }",
                 raw(d6)),
       {2, 3}, d6},
      {"double quotes",
       npy_bytes(1, 0, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (6,)}",
                 raw(d6)),
       {6}, d6},
      {"one-element tuple", npy_bytes(1, 0, dict_for("<f4", "(5,)"), raw(f5)), {5}, f5_wide},
      {"python 2 longs", npy_bytes(1, 0, dict_for("<f4", "(1L, 5L)"), raw(f5)), {1, 5}, f5_wide},
      {"16-byte alignment (old numpy)", npy_bytes(1, 0, dict23, raw(d6), 16), {2, 3}, d6},
      {"no padding at all", npy_bytes(1, 0, dict23, raw(d6), 0), {2, 3}, d6},
      {"newlines inside the dict",
       npy_bytes(1, 0, "{'descr': '<f8',\n 'fortran_order': False,\n 'shape': (2, 3)}", raw(d6)),
       {2, 3}, d6},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string path = file("h.npy");
    put(path, c.bytes);
    Shape shape;
    EXPECT_TRUE(same_bits(npy_read<double>(path, shape), c.want));
    EXPECT_EQ(shape, c.shape);
  }
}

TEST_F(NpyTest, RankZeroAndEmptyArraysReadButAreNoFields) {
  const std::string path = file("s.npy");
  put(path, npy_bytes(1, 0, dict_for("<f8", "()"), raw(std::vector<double>{42.0})));
  Shape shape{1, 2};
  EXPECT_EQ(npy_read<double>(path, shape), std::vector<double>{42.0});
  EXPECT_TRUE(shape.empty());
  Extent e;
  expect_error(path, [&] { npy_read_3d<double>(path, e); }, {"rank 0", "rank 3"});

  const std::string empty = file("e.npy");
  npy_write<float>(empty, std::vector<float>{}, Shape{2, 0, 3});
  EXPECT_TRUE(npy_read<float>(empty, shape).empty());
  EXPECT_EQ(shape, (Shape{2, 0, 3}));
  expect_error(empty, [&] { npy_read_3d<float>(empty, e); }, {"zero dimension", "at least 1"});
  expect_error(empty, [&] { npy_read_field<float>(empty); }, {"zero dimension"});
}

// ---- malformed files -------------------------------------------------------------------

TEST_F(NpyTest, MissingOrUnreadableFile) {
  const std::string missing = file("nope.npy");
  Shape shape;
  expect_error(missing, [&] { npy_inspect(missing); }, {"cannot open", "No such file"});
  expect_error(missing, [&] { npy_read<float>(missing, shape); }, {"cannot open"});
  const std::string dir = file("adir.npy");
  fs::create_directory(dir);
  expect_error(dir, [&] { npy_inspect(dir); }, {"not a regular file"});
}

TEST_F(NpyTest, RejectsBadMagicAndVersion) {
  const std::string path = file("x.npy");
  const std::string payload = raw(std::vector<float>(5, 1.0f));
  expect_bad_file(path, "", {"bad magic"});
  expect_bad_file(path, "\x93NUM", {"bad magic"});
  expect_bad_file(path, "PK\x03\x04 this is a zip file", {"bad magic"});
  std::string bytes = npy_bytes(1, 0, dict_for("<f4", "(5,)"), payload);
  bytes[1] = 'n';
  expect_bad_file(path, bytes, {"bad magic"});
  expect_bad_file(path, npy_bytes(4, 0, dict_for("<f4", "(5,)"), payload),
                  {"version 4.0", "allowed: 1.0, 2.0, 3.0"});
  expect_bad_file(path, npy_bytes(1, 1, dict_for("<f4", "(5,)"), payload), {"version 1.1"});
  expect_bad_file(path, std::string("\x93NUMPY\x01", 7), {"truncated header"});
}

TEST_F(NpyTest, RejectsCorruptHeaders) {
  const std::string path = file("x.npy");
  const std::string payload = raw(std::vector<float>(6, 1.0f));
  const char* const dicts[] = {
      "",
      "[1, 2]",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} junk",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3)}",
      "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3),,}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((((((((((((((((((((((((("
      "(((((((((2,)))))))))))))))))))))))))))))))))))))))))}",
      "{descr: '<f4', 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'shape': (6,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)\x01}",
  };
  for (const char* dict : dicts) {
    SCOPED_TRACE(dict);
    expect_bad_file(path, npy_bytes(1, 0, dict, payload), {"corrupt header"});
  }
  // The length field promises more header than the file holds, or an absurd amount.
  std::string bytes = npy_bytes(1, 0, dict_for("<f4", "(2, 3)"), "");
  expect_bad_file(path, bytes.substr(0, 40), {"truncated header", "expected"});
  bytes = npy_bytes(2, 0, dict_for("<f4", "(2, 3)"), payload);
  bytes[8] = bytes[9] = bytes[10] = bytes[11] = '\xff';
  expect_bad_file(path, bytes, {"corrupt header", "length"});
}

TEST_F(NpyTest, RejectsMissingAndUnknownKeys) {
  const std::string path = file("x.npy");
  const std::string payload = raw(std::vector<float>(6, 1.0f));
  expect_bad_file(path, npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False}", payload),
                  {"missing key 'shape'", "'descr', 'fortran_order' and 'shape'"});
  expect_bad_file(path, npy_bytes(1, 0, "{'descr': '<f4', 'shape': (2, 3)}", payload),
                  {"missing key 'fortran_order'"});
  expect_bad_file(path, npy_bytes(1, 0, "{'fortran_order': False, 'shape': (2, 3)}", payload),
                  {"missing key 'descr'"});
  expect_bad_file(path, npy_bytes(1, 0, "{}", payload), {"missing key"});
  expect_bad_file(path,
                  npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                                  "'units': 'm'}", payload),
                  {"unexpected key 'units'"});
}

TEST_F(NpyTest, RejectsUnsupportedDtypes) {
  const std::string path = file("x.npy");
  const std::string payload(24, '\0');
  struct Case {
    const char* descr;
    const char* words;
  };
  const Case cases[] = {{"<i4", "dtype int32 ('<i4')"},     {"<f2", "dtype float16 ('<f2')"},
                        {"|b1", "dtype bool ('|b1')"},      {"<c8", "dtype complex64"},
                        {"|u1", "dtype uint8"},             {"<U3", "dtype unicode string"},
                        {"|O", "dtype Python object"},      {"<f16", "dtype float128"},
                        {"=f4", "dtype float32 ('=f4')"},   {"", "dtype unknown"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.descr);
    expect_bad_file(path, npy_bytes(1, 0, dict_for(c.descr, "(6,)"), payload),
                    {c.words, "allowed: float32 ('<f4') or float64 ('<f8')"});
  }
  expect_bad_file(path,
                  npy_bytes(1, 0, "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': "
                                  "False, 'shape': (3,)}", payload),
                  {"structured dtype", "allowed"});
  expect_bad_file(path, npy_bytes(1, 0, "{'descr': 4, 'fortran_order': False, 'shape': (3,)}",
                                  payload),
                  {"'descr' must be a dtype string"});
}

TEST_F(NpyTest, RejectsBigEndian) {
  const std::string path = file("x.npy");
  expect_bad_file(path, npy_bytes(1, 0, dict_for(">f4", "(6,)"), std::string(24, '\0')),
                  {"big-endian float32 ('>f4')", "astype('<f4')"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for(">f8", "(3,)"), std::string(24, '\0')),
                  {"big-endian float64 ('>f8')", "astype('<f8')"});
}

TEST_F(NpyTest, RejectsFortranOrder) {
  const std::string path = file("x.npy");
  const std::string payload = raw(std::vector<float>(6, 1.0f));
  expect_bad_file(path,
                  npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                            payload),
                  {"fortran", "np.ascontiguousarray"});
  expect_bad_file(path,
                  npy_bytes(1, 0, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }",
                            payload),
                  {"'fortran_order' must be True or False"});
}

TEST_F(NpyTest, RejectsBadShapes) {
  const std::string path = file("x.npy");
  const std::string payload = raw(std::vector<float>(6, 1.0f));
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(2, -3)"), payload),
                  {"shape (2, -3) is invalid", "dimension -3 is negative"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(6)"), payload),
                  {"'shape' must be a tuple", "found 6"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "[2, 3]"), payload),
                  {"'shape' must be a tuple"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(2, None)"), payload),
                  {"dimension None is not an integer"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(99999999999999999999999, 1)"), payload),
                  {"invalid", "beyond 64 bits", "is too large"});
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(4294967296, 4294967296, 2)"), payload),
                  {"too large", "overflows"});
  expect_bad_file(path,
                  npy_bytes(1, 0, dict_for("<f8", "(18446744073709551615,)"), payload),
                  {"too large"});
}

TEST_F(NpyTest, RejectsTruncatedData) {
  const std::string path = file("x.npy");
  const std::string full = npy_bytes(1, 0, dict_for("<f4", "(2, 3, 5)"),
                                     raw(std::vector<float>(30, 2.0f)));
  expect_bad_file(path, full.substr(0, full.size() - 20),
                  {"truncated", "expected 120 data bytes", "100 present", "float32"});
  expect_bad_file(path, full.substr(0, 128), {"truncated", "0 present"});
}

TEST_F(NpyTest, RejectsTrailingData) {
  const std::string path = file("x.npy");
  const std::string full = npy_bytes(1, 0, dict_for("<f8", "(2, 3)"),
                                     raw(std::vector<double>(6, 2.0)));
  expect_bad_file(path, full + "garbage", {"trailing data", "7 bytes", "not what its header says"});
  // Data written as float64 but labelled float32: twice the bytes the header promises.
  expect_bad_file(path, npy_bytes(1, 0, dict_for("<f4", "(2, 3)"), raw(std::vector<double>(6))),
                  {"trailing data"});
}

TEST_F(NpyTest, Read3dRequiresRankThree) {
  const std::string path = file("x.npy");
  npy_write<float>(path, std::vector<float>(12, 1.0f), Shape{3, 4});
  Extent e;
  expect_error(path, [&] { npy_read_3d<float>(path, e); }, {"rank 2", "shape (3, 4)", "(nz, ny, nx)"});
  expect_error(path, [&] { npy_read_field<double>(path); }, {"rank 2"});
  npy_write<float>(path, std::vector<float>(12, 1.0f), Shape{1, 3, 4, 1});
  expect_error(path, [&] { npy_read_3d<double>(path, e); }, {"rank 4"});
}

// An axis longer than an int can index: detected from the header alone (sparse file).
TEST_F(NpyTest, Read3dRejectsAxisBeyondInt) {
  const std::string path = file("x.npy");
  const std::string head = npy_bytes(1, 0, dict_for("<f4", "(1, 1, 3000000000)"), "");
  put(path, head);
  std::error_code ec;
  fs::resize_file(path, head.size() + 12000000000ull, ec);
  if (ec) GTEST_SKIP() << "no sparse file: " << ec.message();
  Extent e;
  expect_error(path, [&] { npy_read_3d<float>(path, e); }, {"3000000000 points", "2147483647"});
}

// ---- write errors ----------------------------------------------------------------------

TEST_F(NpyTest, WriteRejectsMismatchedShape) {
  const std::string path = file("x.npy");
  expect_error(path, [&] { npy_write<float>(path, std::vector<float>(5), Shape{2, 3}); },
               {"shape (2, 3) holds 6 values but 5 were given"});
  expect_error(path,
               [&] { npy_write<double>(path, std::vector<double>(1), Shape{1u << 31, 1u << 31, 1u << 31}); },
               {"too large"});
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(NpyTest, WriteIntoMissingDirectoryCreatesIt) {
  const std::string path = file("missing/dir/x.npy");
  npy_write<float>(path, std::vector<float>(2, 1.5f), Shape{2});
  Shape shape;
  EXPECT_EQ(npy_read<float>(path, shape), std::vector<float>(2, 1.5f));
  // A write that fails leaves no directory it made.
  const std::string bad = file("other/dir/x.npy");
  expect_error(bad, [&] { npy_write<float>(bad, std::vector<float>(5), Shape{2, 3}); }, {"holds 6 values"});
  EXPECT_FALSE(fs::exists(file("other")));
}

TEST_F(NpyTest, FailedWriteLeavesOldFileAndNoTemporary) {
  const std::string path = file("x.npy");
  const std::vector<double> old{1, 2, 3};
  npy_write<double>(path, old, Shape{3});
  expect_error(path, [&] { npy_write<double>(path, std::vector<double>(4), Shape{3}); },
               {"holds 3 values"});
  const std::string taken = file("taken.npy");
  fs::create_directory(taken);
  expect_error(taken, [&] { npy_write<double>(taken, old, Shape{3}); }, {"is a directory"});
  Shape shape;
  EXPECT_EQ(npy_read<double>(path, shape), old);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2u);  // x.npy and the directory taken.npy, no temporaries
}
