// How a distributed wave run splits its grid (solvers/wave/partition.hpp): the boxes tile the
// grid, the cuts weigh absorbing-layer points by their cost, every box holds its layers
// whole and is at least the stencil radius thick, and a split that cannot is refused.
#include <gtest/gtest.h>

#include "solvers/wave/partition.hpp"

namespace strata::wave {
namespace {

Config gpu512_like() {
  Config c;
  c.shape = {512, 512, 512};
  c.order = 8;
  c.pml_width = 20;
  c.faces = {FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::pml, FaceKind::free, FaceKind::pml};
  return c;
}

// Every box of the grid, checked to tile it: boxes along an axis abut, from 0 to the extent.
std::vector<dist::Subdomain> boxes(const Config& c, const dist::ProcessGrid& g) {
  std::vector<dist::Subdomain> out;
  std::size_t points = 0;
  for (int r = 0; r < g.ranks(); ++r) {
    out.push_back(wave_box(c, g, r));
    points += out.back().local.points();
  }
  EXPECT_EQ(points, c.shape.points());
  return out;
}

TEST(WavePartition, TheBoxWithTheBottomLayerGetsFewerPlanes) {
  const Config c = gpu512_like();
  const auto b = boxes(c, dist::ProcessGrid{{1, 1, 2}});
  // Work: 512 planes, the 20 of the zmax layer at 3.2 each: 556 in all, 278 a box.
  EXPECT_EQ(b[0].local.nz, 278);
  EXPECT_EQ(b[1].local.nz, 234);
  EXPECT_EQ(b[1].offset[2], 278);
  // Along x both ends hold a layer: the split stays even.
  const auto bx = boxes(c, dist::ProcessGrid{{2, 1, 1}});
  EXPECT_EQ(bx[0].local.nx, 256);
  EXPECT_EQ(bx[1].local.nx, 256);
}

TEST(WavePartition, EveryLayerLiesWholeInABoxThickEnough) {
  for (int nz : {30, 44, 61, 97})
    for (int p : {2, 3, 4}) {
      Config c = gpu512_like();
      c.shape = {24, 20, nz};
      c.pml_width = 6;
      const dist::ProcessGrid g{{1, 1, p}};
      for (const auto& b : boxes(c, g)) {
        EXPECT_GE(b.local.nz, c.order / 2) << nz << " over " << p;
        const int lo = b.offset[2], hi = lo + b.local.nz;
        if (lo < nz && hi > nz - c.pml_width) {
          EXPECT_LE(lo, nz - c.pml_width) << nz << " over " << p;
        }
      }
    }
}

TEST(WavePartition, ASplitThatMustCutALayerIsRefused) {
  Config c = gpu512_like();
  c.shape = {24, 20, 13};  // 13 over 3 boxes >= 4 thick: the 6-point zmax layer cannot lie whole
  c.pml_width = 6;
  const dist::ProcessGrid g{{1, 1, 3}};
  wave::Setup global;
  global.n = c.shape;
  global.radius = 4;
  PmlFace f;
  f.face = zmax;
  f.axis = 2;
  f.lo = {0, 0, 13 - 6};
  f.hi = {24, 20, 13};
  f.a.assign(6, 0.1);
  f.b.assign(6, 0.9);
  global.pml.push_back(f);
  bool refused = false;
  for (int r = 0; r < 3; ++r) {
    Partition part;
    try {
      partition_setup(global, g, wave_box(c, g, r), part);
    } catch (const Error& e) {
      refused = true;
      EXPECT_NE(std::string(e.what()).find("would be cut between ranks"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(refused);
}

}  // namespace
}  // namespace strata::wave
