// Device-to-device copies between layouts (runtime::copy_2d / copy_3d, which run the pitched
// copy kernel of cuda/copy_pitched.cu), bit for bit against a host reference: raw boxes of
// many widths, pitches and base alignments (every vector width), the 64-bit index path, and
// strata::copy between dense and padded device fields. Destinations are filled with a
// pattern first, so a byte written outside the box (padding, ghosts, guards) fails.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/device_array.hpp"
#include "base/runtime.hpp"
#include "common/require_gpu.hpp"
#include "cuda/copy_pitched.hpp"
#include "strata/field.hpp"

using namespace strata;

namespace {

struct Box {
  std::size_t soff, doff;     // bytes from the allocations' (256-byte aligned) starts
  std::size_t spitch, srows;  // source rows and planes
  std::size_t dpitch, drows;  // destination rows and planes
  std::size_t width, height, depth;
  std::string str() const {
    return "width " + std::to_string(width) + " x " + std::to_string(height) + " x " +
           std::to_string(depth) + ", spitch " + std::to_string(spitch) + " srows " +
           std::to_string(srows) + " soff " + std::to_string(soff) + ", dpitch " +
           std::to_string(dpitch) + " drows " + std::to_string(drows) + " doff " +
           std::to_string(doff);
  }
};

std::size_t span_of(std::size_t off, std::size_t pitch, std::size_t rows, const Box& b) {
  return off + (b.depth - 1) * rows * pitch + (b.height - 1) * pitch + b.width + 64;  // + guard
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& c : v) c = std::uint8_t(rng());
  return v;
}

// Copies b on the device (by copy_3d, copy_2d at depth 1, or the kernel's 64-bit index path)
// and compares the whole destination allocation with the host reference.
enum class Via { copy_3d, copy_2d, wide_index };

void check_box(const Box& b, Via via, std::uint32_t seed) {
  const std::vector<std::uint8_t> src = random_bytes(span_of(b.soff, b.spitch, b.srows, b), seed);
  std::vector<std::uint8_t> want = random_bytes(span_of(b.doff, b.dpitch, b.drows, b), ~seed);
  DeviceArray<std::uint8_t> dsrc(src), ddst(want);
  for (std::size_t z = 0; z < b.depth; ++z)
    for (std::size_t y = 0; y < b.height; ++y)
      std::memcpy(&want[b.doff + (z * b.drows + y) * b.dpitch],
                  &src[b.soff + (z * b.srows + y) * b.spitch], b.width);
  std::uint8_t* d = ddst.get() + b.doff;
  const std::uint8_t* s = dsrc.get() + b.soff;
  switch (via) {
    case Via::copy_3d:
      runtime::copy_3d(d, Memory::device, b.dpitch, b.drows, s, Memory::device, b.spitch, b.srows,
                       b.width, b.height, b.depth);
      break;
    case Via::copy_2d:
      runtime::copy_2d(d, Memory::device, b.dpitch, s, Memory::device, b.spitch, b.width, b.height);
      break;
    case Via::wide_index:
      // The kernel's own entry: only a CUDA build has it (the tests skip before here without
      // a GPU, but a build without CUDA must still link them).
#if STRATA_HAVE_CUDA
      cuda::copy_pitched(d, b.dpitch, b.drows, s, b.spitch, b.srows, b.width, b.height, b.depth,
                         true);
#else
      FAIL() << "a build without CUDA has no copy kernel";
#endif
      break;
  }
  const std::vector<std::uint8_t> got = ddst.download(want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(int(got[i]), int(want[i]))
        << "first wrong byte at " << i << " of " << want.size() << ": " << b.str();
}

// Random boxes whose widths, pitches and offsets are multiples of `align` bytes (so every
// vector width the launcher picks is met) or of nothing.
Box random_box(std::mt19937& rng, std::size_t align, bool flat) {
  auto pick = [&](std::initializer_list<std::size_t> v) { return *(v.begin() + rng() % v.size()); };
  Box b{};
  b.width = align * pick({1, 3, 5, 17, 32, 33, 128, 130});
  b.height = pick({1, 2, 3, 7, 16, 33});
  b.depth = flat ? 1 : pick({1, 2, 3, 5, 9});
  b.spitch = b.width + align * pick({0, 0, 1, 3, 8, 31});
  b.dpitch = b.width + align * pick({0, 1, 2, 5, 16});
  b.srows = b.height + pick({0, 0, 1, 4});
  b.drows = b.height + pick({0, 1, 3});
  b.soff = align * pick({0, 1, 2, 3, 16});
  b.doff = align * pick({0, 1, 4, 7});
  return b;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = T(u(rng));
  return v;
}

// Which elements of a layout's allocation are interior points.
std::vector<bool> interior_of(const Layout& L) {
  std::vector<bool> inside(L.size, false);
  for (int z = 0; z < L.n.nz; ++z)
    for (int y = 0; y < L.n.ny; ++y)
      for (int x = 0; x < L.n.nx; ++x) inside[std::size_t(L.index(x, y, z))] = true;
  return inside;
}

bool same_bits(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

// strata::copy between a dense device array (wrapped at `lead` elements past a 256-byte
// boundary, so not 16-byte aligned when lead is odd) and a padded device field, both ways.
template <class T>
void dense_padded(Extent n, int ghost, std::size_t lead) {
  const std::string what = n.str() + " ghost " + std::to_string(ghost) + " lead " +
                           std::to_string(lead) + " " + std::to_string(sizeof(T)) + "-byte";
  const Layout dl = Layout::dense(n, sizeof(T));
  const std::size_t guard = 19;
  std::vector<T> dense = random_values<T>(lead + n.points() + guard, 7);
  DeviceArray<T> ddense(dense);
  Field<T> wrapped = Field<T>::wrap(ddense.get() + lead, dl, Memory::device);

  // dense -> padded: every byte outside the interior keeps the pattern.
  Field<T> pattern(n, ghost);
  const std::vector<T> fill = random_values<T>(pattern.layout().size, 11);
  std::memcpy(pattern.data(), fill.data(), fill.size() * sizeof(T));
  Field<T> padded(n, ghost, Memory::device);
  copy(pattern, padded);  // same layout: a flat copy
  copy(wrapped, padded);
  Field<T> back(n, ghost);
  copy(padded, back);
  const Layout& pl = back.layout();
  std::size_t wrong = 0;
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        wrong += !same_bits(&back.data()[pl.index(x, y, z)], &dense[lead + dl.index(x, y, z)],
                            sizeof(T));
  const std::vector<bool> inside = interior_of(pl);
  for (std::size_t i = 0; i < pl.size; ++i)
    if (!inside[i]) wrong += !same_bits(&back.data()[i], &fill[i], sizeof(T));
  EXPECT_EQ(wrong, 0u) << "dense -> padded, " << what;

  // padded -> dense into a patterned array: the lead and the guard stay as they were.
  std::vector<T> target = random_values<T>(dense.size(), 13);
  DeviceArray<T> dtarget(target);
  Field<T> wrapped_out = Field<T>::wrap(dtarget.get() + lead, dl, Memory::device);
  copy(padded, wrapped_out);
  const std::vector<T> got = dtarget.download(target.size());
  for (std::size_t i = lead; i < lead + n.points(); ++i) target[i] = dense[i];
  EXPECT_TRUE(same_bits(got.data(), target.data(), got.size() * sizeof(T)))
      << "padded -> dense, " << what;
}

// Between two padded layouts (ghost widths differ, so do pitches and planes), and the
// device interior loaded and stored (host <-> device: still cudaMemcpy3D).
template <class T>
void padded_padded(Extent n) {
  Field<T> a(n, 1), b_pattern(n, 4);
  const std::vector<T> va = random_values<T>(a.layout().size, 3);
  const std::vector<T> vb = random_values<T>(b_pattern.layout().size, 5);
  std::memcpy(a.data(), va.data(), va.size() * sizeof(T));
  std::memcpy(b_pattern.data(), vb.data(), vb.size() * sizeof(T));
  Field<T> da(n, 1, Memory::device), db(n, 4, Memory::device);
  copy(a, da);
  copy(b_pattern, db);
  copy(da, db);
  Field<T> got(n, 4);
  copy(db, got);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x) b_pattern(x, y, z) = a(x, y, z);
  EXPECT_TRUE(same_bits(got.data(), b_pattern.data(), got.layout().bytes())) << n.str();

  std::vector<T> interior = random_values<T>(n.points(), 17), out(n.points());
  db.load_interior(interior);
  db.store_interior(out);
  EXPECT_TRUE(same_bits(out.data(), interior.data(), out.size() * sizeof(T))) << n.str();
  copy(db, got);
  const std::vector<bool> inside = interior_of(got.layout());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.layout().size; ++i)
    if (!inside[i]) wrong += !same_bits(&got.data()[i], &b_pattern.data()[i], sizeof(T));
  EXPECT_EQ(wrong, 0u) << "ghosts after load_interior, " << n.str();
}

const Extent kExtents[] = {{1, 1, 1},  {3, 2, 2},  {5, 7, 3},  {17, 5, 4},
                           {33, 9, 6}, {64, 3, 2}, {130, 4, 3}};

}  // namespace

TEST(CopyPitchedCuda, RandomBoxesEveryAlignment) {
  REQUIRE_GPU();
  std::mt19937 rng(0x5eed);
  std::uint32_t seed = 1;
  for (std::size_t align : {1, 2, 4, 8, 16})
    for (int i = 0; i < 40; ++i) check_box(random_box(rng, align, false), Via::copy_3d, seed++);
}

TEST(CopyPitchedCuda, DepthOneIsCopy2d) {
  REQUIRE_GPU();
  std::mt19937 rng(0x2d);
  std::uint32_t seed = 100;
  for (std::size_t align : {1, 4, 8, 16})
    for (int i = 0; i < 20; ++i) check_box(random_box(rng, align, true), Via::copy_2d, seed++);
}

TEST(CopyPitchedCuda, WideIndexPath) {
  REQUIRE_GPU();
  std::mt19937 rng(0x64);
  std::uint32_t seed = 200;
  for (std::size_t align : {1, 4, 16})
    for (int i = 0; i < 10; ++i) check_box(random_box(rng, align, false), Via::wide_index, seed++);
}

TEST(CopyPitchedCuda, ZeroSizesMoveNothing) {
  REQUIRE_GPU();
  DeviceArray<std::uint8_t> a(std::vector<std::uint8_t>(64, 1)),
      b(std::vector<std::uint8_t>(64, 2));
  runtime::copy_3d(b.get(), Memory::device, 16, 2, a.get(), Memory::device, 16, 2, 0, 2, 2);
  runtime::copy_3d(b.get(), Memory::device, 16, 2, a.get(), Memory::device, 16, 2, 16, 0, 2);
  runtime::copy_3d(b.get(), Memory::device, 16, 2, a.get(), Memory::device, 16, 2, 16, 2, 0);
  runtime::copy_2d(b.get(), Memory::device, 16, a.get(), Memory::device, 16, 16, 0);
  EXPECT_EQ(b.download(64), std::vector<std::uint8_t>(64, 2));
}

TEST(CopyPitchedCuda, DensePaddedFields) {
  REQUIRE_GPU();
  for (const Extent& n : kExtents)
    for (int ghost : {0, 1, 3})
      for (std::size_t lead : {0, 1, 2}) {
        dense_padded<float>(n, ghost, lead);
        dense_padded<double>(n, ghost, lead);
      }
}

TEST(CopyPitchedCuda, PaddedPaddedFieldsAndInterior) {
  REQUIRE_GPU();
  for (const Extent& n : kExtents) {
    padded_padded<float>(n);
    padded_padded<double>(n);
  }
}

// A device Field's own allocation, as a host one's (tests/core/test_layout.cpp): x = 0 of
// every row on a 256-byte boundary, and the lead bytes before index 0, the ghosts and the
// padding zero. Odd extents, every ghost width class, both precisions.
template <class T>
void device_rows_on_256(Extent n, int g) {
  Field<T> f(n, g, Memory::device);
  const Layout& L = f.layout();
  for (int z = -g; z < n.nz + g; ++z)
    for (int y = -g; y < n.ny + g; ++y)
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(f.data() + L.index(0, y, z)) % 256, 0u)
          << n.str() << " ghost " << g << " row " << y << " plane " << z;
  const std::size_t bytes = L.lead_bytes() + L.bytes();
  std::vector<std::uint8_t> all(bytes, 0xff);
  runtime::copy_bytes(all.data(), Memory::host,
                      reinterpret_cast<const std::uint8_t*>(f.data()) - L.lead_bytes(),
                      Memory::device, bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    ASSERT_EQ(all[i], 0u) << "byte " << i << " of " << n.str();
}

TEST(CopyPitchedCuda, DeviceFieldRowsStartOn256Bytes) {
  REQUIRE_GPU();
  for (int g : {0, 1, 4, 12, 16})
    for (Extent n : {Extent{1, 1, 1}, Extent{33, 5, 3}, Extent{130, 4, 2}, Extent{515, 3, 2}}) {
      device_rows_on_256<float>(n, g);
      device_rows_on_256<double>(n, g);
    }
}
