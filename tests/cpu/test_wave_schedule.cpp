// The GPU CPML pass's block schedule (core/wave_schedule.hpp) is host arithmetic: every
// block of the chosen grid appears exactly once, heaviest first, and on the grid
// the layers' extra work is spread over every slot (the modelled step is near perfect
// balance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>

#include "core/wave_schedule.hpp"

using namespace strata;
using namespace strata::wave;

namespace {

// Layers of `width` points on the given faces, spanning the grid as core/wave_plan.cpp builds them.
std::vector<PmlFace> layers(Extent n, int width, std::initializer_list<int> faces) {
  const int len[3] = {n.nx, n.ny, n.nz};
  std::vector<PmlFace> out;
  for (int f : faces) {
    PmlFace p;
    p.face = f;
    p.axis = f / 2;
    for (int a = 0; a < 3; ++a) p.lo[a] = 0, p.hi[a] = len[a];
    if (f % 2) p.lo[p.axis] = len[p.axis] - width;
    else p.hi[p.axis] = width;
    out.push_back(p);
  }
  return out;
}

int blocks(Extent n, const TileShape& t, int chunks) {
  return ((n.nx + t.tx - 1) / t.tx) * ((n.ny + t.ty - 1) / t.ty) * chunks;
}

void expect_permutation(const BlockSchedule& s, Extent n, const TileShape& t) {
  ASSERT_GE(s.zchunks, 1);
  const int len = (n.nz + s.zchunks - 1) / s.zchunks;
  EXPECT_EQ((n.nz + len - 1) / len, s.zchunks) << "a chunk count the launcher would reduce";
  ASSERT_EQ(int(s.order.size()), blocks(n, t, s.zchunks));
  std::vector<int> sorted = s.order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < int(sorted.size()); ++i) ASSERT_EQ(sorted[i], i) << "not a permutation";
}

}  // namespace

TEST(WaveSchedule, EveryBlockOnceOnOddGrids) {
  const TileShape t{128, 16, 4, 132};
  for (Extent n : {Extent{1, 1, 1}, Extent{45, 38, 41}, Extent{150, 40, 70}, Extent{130, 7, 33}, Extent{512, 512, 512}}) {
    const int w = std::max(1, std::min({n.nx, n.ny, n.nz}) / 4);
    const BlockSchedule s = schedule_blocks(n, 4, t, layers(n, w, {0, 1, 2, 3, 5}));
    expect_permutation(s, n, t);
    const BlockSchedule e = schedule_blocks(n, 4, t, {});
    expect_permutation(e, n, t);
    EXPECT_LE(e.cost, s.cost * 1.0000001) << n.str() << ": layers cannot make the step cheaper";
  }
}

TEST(WaveSchedule, ChunkByChunkHeaviestFirst) {
  // 512^3 with 16-point layers on y only: in every z chunk the two rows of tiles inside the
  // layers (TY = 16) are the heaviest and come first, then the others in tile order.
  const Extent n{512, 512, 512};
  const TileShape t{128, 16, 4, 132};
  const BlockSchedule s = schedule_blocks(n, 4, t, layers(n, 16, {2, 3}));
  expect_permutation(s, n, t);
  const int tiles = 4 * 32;
  for (int c = 0; c < s.zchunks; ++c)
    for (int i = 0; i < tiles; ++i) {
      const int work = s.order[std::size_t(c) * tiles + i];
      ASSERT_EQ(work / tiles, c) << "block " << c * tiles + i << " is not of chunk " << c;
      // tiles 0-3 and 124-127 (rows 0 and 31), then 4..123
      const int want = i < 4 ? i : i < 8 ? 120 + i : i - 4;
      EXPECT_EQ(work % tiles, want) << "block " << i << " of chunk " << c;
    }
  const BlockSchedule again = schedule_blocks(n, 4, t, layers(n, 16, {2, 3}));
  EXPECT_EQ(again.order, s.order) << "not deterministic";
  EXPECT_EQ(again.zchunks, s.zchunks);
}

TEST(WaveSchedule, LayersAreSpreadOverEverySlot) {
  // The benchmark's case (16-point layers on five faces) and examples/wave/gpu512.json's
  // (20 points). With perfect balance the step costs 1 + (kLayerWords / kPointWords) x the
  // layer boxes' points over the grid's (boxes overlap at edges, where a point keeps the
  // memory variables of two or three axes); the schedule must come within 3% of that, where
  // one wave of whole-z tiles would cost about twice the even grid (the tiles inside a
  // y layer carry twice the bytes and set the step time).
  const Extent n{512, 512, 512};
  const TileShape t{128, 16, 4, 132};
  for (int w : {16, 20}) {
    const auto ls = layers(n, w, {0, 1, 2, 3, 5});
    const BlockSchedule s = schedule_blocks(n, 4, t, ls);
    double box_points = 0;
    for (const PmlFace& f : ls) box_points += double(f.points());
    const double balanced = 1.0 + kLayerWords / kPointWords * box_points / double(n.points());
    const double inner = double(512 - 2 * w) * (512 - 2 * w) * (512 - w);
    const double share = 1.0 + (1.0 - inner / double(n.points()));
    const double ratio = s.cost / s.even_cost;
    std::printf("width %d: %d z chunks, modelled cost over the even grid %.3f (perfectly balanced %.3f; 1 + layer "
                "fraction %.3f)\n",
                w, s.zchunks, ratio, balanced, share);
    EXPECT_LT(ratio, balanced + 0.03) << "width " << w;
  }
}
