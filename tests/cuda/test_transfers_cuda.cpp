// Copies between host and device large enough to go through the runtime's pinned buffers
// (runtime::copy_bytes, copy_2d and copy_3d from 32 MiB), bit for bit, each direction checked
// against the other side moved in pieces below that size (the direct path), so an error of
// the staged path cannot cancel itself out. Boxes of both kinds of chunk (whole planes; rows
// of one plane wider than a buffer), pitches and padding rows on both sides, a flat copy
// with a tail that is not whole rows of the staging; destinations are filled with a pattern
// first, so a byte written outside the box fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "common/require_gpu.hpp"

using namespace strata;

namespace {

constexpr std::size_t kDirect = std::size_t(8) << 20;  // below the staged path's 32 MiB

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; i += 4) {
    const std::uint32_t r = rng();
    std::memcpy(&v[i], &r, std::min<std::size_t>(4, n - i));
  }
  return v;
}

// The device array's bytes, moved in direct pieces.
void upload_direct(DeviceArray<std::uint8_t>& d, const std::vector<std::uint8_t>& h) {
  for (std::size_t at = 0; at < h.size(); at += kDirect)
    runtime::copy_bytes(d.get() + at, Memory::device, h.data() + at, Memory::host,
                        std::min(kDirect, h.size() - at));
}
std::vector<std::uint8_t> download_direct(const DeviceArray<std::uint8_t>& d, std::size_t n) {
  std::vector<std::uint8_t> h(n);
  for (std::size_t at = 0; at < n; at += kDirect)
    runtime::copy_bytes(h.data() + at, Memory::host, d.get() + at, Memory::device,
                        std::min(kDirect, n - at));
  return h;
}

struct Box {
  std::size_t width, height, depth;
  std::size_t dev_pitch, dev_rows;    // the device side's rows and planes
  std::size_t host_pitch, host_rows;  // the host side's
  std::size_t bytes(std::size_t pitch, std::size_t rows) const {
    return (depth - 1) * rows * pitch + (height - 1) * pitch + width + 64;  // + a guard
  }
  std::string str() const {
    return std::to_string(width) + " x " + std::to_string(height) + " x " + std::to_string(depth) +
           " (device pitch " + std::to_string(dev_pitch) + ", rows " + std::to_string(dev_rows) +
           "; host pitch " + std::to_string(host_pitch) + ", rows " + std::to_string(host_rows) +
           ")";
  }
};

void copy_box(std::vector<std::uint8_t>& want, std::size_t dpitch, std::size_t drows,
              const std::vector<std::uint8_t>& from, std::size_t spitch, std::size_t srows,
              const Box& b) {
  for (std::size_t z = 0; z < b.depth; ++z)
    for (std::size_t y = 0; y < b.height; ++y)
      std::memcpy(&want[(z * drows + y) * dpitch], &from[(z * srows + y) * spitch], b.width);
}

// The box from src to dst by the runtime's copy_2d (depth 1) or copy_3d.
void runtime_copy(void* dst, Memory dm, std::size_t dpitch, std::size_t drows, const void* src,
                  Memory sm, std::size_t spitch, std::size_t srows, const Box& b, bool as_2d) {
  if (as_2d)
    runtime::copy_2d(dst, dm, dpitch, src, sm, spitch, b.width, b.height);
  else
    runtime::copy_3d(dst, dm, dpitch, drows, src, sm, spitch, srows, b.width, b.height, b.depth);
}

void check_both_ways(const Box& b, bool as_2d, std::uint32_t seed) {
  SCOPED_TRACE(b.str() + (as_2d ? " by copy_2d" : " by copy_3d"));
  const std::size_t nd = b.bytes(b.dev_pitch, b.dev_rows), nh = b.bytes(b.host_pitch, b.host_rows);
  // Device to host.
  const std::vector<std::uint8_t> dev_bytes = random_bytes(nd, seed);
  DeviceArray<std::uint8_t> dev(nd);
  upload_direct(dev, dev_bytes);
  std::vector<std::uint8_t> host = random_bytes(nh, ~seed), want = host;
  copy_box(want, b.host_pitch, b.host_rows, dev_bytes, b.dev_pitch, b.dev_rows, b);
  runtime_copy(host.data(), Memory::host, b.host_pitch, b.host_rows, dev.get(), Memory::device,
               b.dev_pitch, b.dev_rows, b, as_2d);
  EXPECT_TRUE(host == want) << "device to host";
  // Host to device.
  const std::vector<std::uint8_t> host_bytes = random_bytes(nh, seed + 7);
  std::vector<std::uint8_t> dev_want = random_bytes(nd, ~seed + 7);
  upload_direct(dev, dev_want);
  copy_box(dev_want, b.dev_pitch, b.dev_rows, host_bytes, b.host_pitch, b.host_rows, b);
  runtime_copy(dev.get(), Memory::device, b.dev_pitch, b.dev_rows, host_bytes.data(), Memory::host,
               b.host_pitch, b.host_rows, b, as_2d);
  EXPECT_TRUE(download_direct(dev, nd) == dev_want) << "host to device";
}

}  // namespace

TEST(TransfersCuda, FlatCopiesWithATail) {
  REQUIRE_GPU();
  // Whole 1 MiB rows of the staging, then a tail copied directly; and a copy of exactly 32 MiB.
  for (const std::size_t n : {(std::size_t(40) << 20) + 12345, std::size_t(32) << 20}) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    const std::vector<std::uint8_t> up = random_bytes(n, 11);
    DeviceArray<std::uint8_t> d(n);
    runtime::copy_bytes(d.get(), Memory::device, up.data(), Memory::host, n);
    EXPECT_TRUE(download_direct(d, n) == up) << "host to device";
    const std::vector<std::uint8_t> other = random_bytes(n, 12);
    upload_direct(d, other);
    std::vector<std::uint8_t> down(n);
    runtime::copy_bytes(down.data(), Memory::host, d.get(), Memory::device, n);
    EXPECT_TRUE(down == other) << "device to host";
  }
}

TEST(TransfersCuda, BoxesOfWholePlanes) {
  REQUIRE_GPU();
  // 2.1 MB planes: several to a chunk, the last chunk short; padding rows on both sides.
  check_both_ways({3000, 700, 20, 3072, 705, 3004, 702}, false, 21);
  // The dense host side of a padded field (the imaging correlation's download).
  check_both_ways({4096, 512, 18, 4352, 520, 4096, 512}, false, 22);
}

TEST(TransfersCuda, PlanesWiderThanABuffer) {
  REQUIRE_GPU();
  // 18 MB planes: each cut into rows of one plane (419 + 31 rows).
  check_both_ways({40000, 450, 2, 40064, 452, 40000, 450}, false, 31);
  // copy_2d: one such plane at depth 1.
  check_both_ways({40000, 900, 1, 40064, 900, 40008, 900}, true, 32);
}

TEST(TransfersCuda, SmallCopiesStayDirect) {
  REQUIRE_GPU();
  // Below 32 MiB the direct path: the same bits.
  check_both_ways({1000, 100, 3, 1024, 101, 1000, 100}, false, 41);
}
