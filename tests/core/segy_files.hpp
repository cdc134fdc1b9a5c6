// What the SEG-Y tests share: a fixture with a directory of its own (common/scratch_dir.hpp), files
// as bytes, big-endian integers written here (not with the library's codecs, so that the reader is
// held against an independent layout), a refusal's checks, and a shot line of trace headers.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error_of.hpp"
#include "common/scratch_dir.hpp"
#include "io/segy.hpp"

namespace strata::test::segy {

namespace fs = std::filesystem;
using io::segy::Trace;

class SegyTest : public ScratchDirTest {
 public:
  SegyTest() : ScratchDirTest("strata_segy") {}
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Big-endian integers into a byte string (offsets 0-based).
inline void be(std::string& s, std::size_t at, int bytes, std::uint64_t v) {
  for (int i = 0; i < bytes; ++i)
    s[at + std::size_t(i)] = char((v >> (8 * (bytes - 1 - i))) & 0xff);
}

// A message must name the file, a byte offset and hold every fragment.
inline void expect_refused(const std::string& path, const std::string& message,
                           std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(message.empty()) << "no strata::Error for " << path;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("byte offset"), std::string::npos) << message;
  for (const char* f : fragments)
    EXPECT_NE(message.find(f), std::string::npos) << "missing '" << f << "' in: " << message;
}

inline std::string read_error(const std::string& path) {
  return error_of([&] { io::segy::read<float>(path); });
}

// A shot line: receivers every 12.5 m along x at 7.25 m depth, the source at 1.5 m depth.
inline std::vector<Trace> shot_line(int n) {
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

}  // namespace strata::test::segy
