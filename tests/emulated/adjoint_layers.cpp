// The wave adjoint's layer passes on a CPU through lab/dev/cuda_emu.hpp (one thread per CUDA
// thread, real barriers): kernels::adjoint_layer_tiles, the pass the GPU runs, against
// kernels::adjoint_layer, the walk whose statements it reorders, bit for bit (q_new, psi and
// zeta), on random data: every axis and side, radii 1-4, f32 and f64, layers of more lines a
// tile than a block has threads, of a few and of one, and a reach no tile holds (the launcher's
// walk alone). The GPU tests hold both to the CPU's adjoint
// (tests/cuda/test_wave_adjoint_cuda.cpp); this one runs everywhere, so a tile's indexing or a
// missing barrier fails in CI, before a GPU runs it. It checks indexing and barriers, not the
// GPU's memory model. By hand, also under the host's sanitizers (an index past a tile or a line
// reads or writes outside its array there):
//   g++ -std=c++20 -O1 -g -fsanitize=address,undefined -pthread -I. -Isrc -o /tmp/emu
//       tests/emulated/adjoint_layers.cpp   (then run /tmp/emu)
#include "lab/dev/cuda_emu.hpp"
#define __grid_constant__

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/kernels/wave_adjoint.cuh"

using namespace strata::cuda::kernels;

namespace {

int failures = 0, cases = 0;

// One layer of `width` points on face `low` of `axis` of an nx x ny x nz grid whose fields
// have R ghosts and a pitch longer than a row, as cuda/wave/adjoint.cu builds it.
template <class T, int R>
void check(int nx, int ny, int nz, int axis, bool low, int width, unsigned seed) {
  const int n[3] = {nx, ny, nz};
  ++cases;
  if (width + R > n[axis]) {  // the solver refuses such a layer: a mistake in this list
    std::printf("FAIL: a %d-point layer on a grid %d wide\n", width, n[axis]);
    ++failures;
    return;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  const std::int64_t pitch = nx + 2 * R + 3, plane = pitch * (ny + 2 * R);
  const std::int64_t total = plane * (nz + 2 * R), origin = R * plane + R * pitch + R;
  AdjointLayer L;
  for (int k = 0; k < 3; ++k) L.lo[k] = 0, L.hi[k] = n[k];
  if (low)
    L.hi[axis] = width;
  else
    L.lo[axis] = n[axis] - width;
  L.axis = axis;
  L.radius = R;
  for (int r = 0; r <= R; ++r) L.d1[r] = r ? U(rng) : 0.0, L.d2[r] = U(rng);
  L.pitch = pitch;
  L.plane = plane;
  LayerLines ll;
  ll.reach_lo = std::max(0, L.lo[axis] - R);
  ll.reach_hi = std::min(n[axis], L.hi[axis] + R);
  ll.line_axis = axis == 0 ? 1 : 0;
  ll.outer_axis = axis == 2 ? 1 : 2;
  ll.lines = std::int64_t(L.width(ll.line_axis)) * L.width(ll.outer_axis);
  std::vector<T> q(static_cast<std::size_t>(total)), q_new(q.size()), c2(q.size());
  std::vector<T> psi(static_cast<std::size_t>(L.points())), zeta(psi.size());
  for (T& v : q) v = T(U(rng));
  for (T& v : q_new) v = T(U(rng));
  for (T& v : c2) v = T(0.5 + 0.5 * U(rng));
  for (T& v : psi) v = T(U(rng));
  for (T& v : zeta) v = T(U(rng));
  std::vector<double> a(static_cast<std::size_t>(width)), b(a.size());
  for (double& v : a) v = double(T(U(rng)));
  for (double& v : b) v = double(T(U(rng)));
  auto walk_q = q_new, walk_psi = psi, walk_zeta = zeta;
  emu::launch(dim3(3), dim3(kLayerThreads), adjoint_layer<T, R>, q.data() + origin,
              walk_q.data() + origin, c2.data() + origin, L, ll, a.data(), b.data(),
              walk_psi.data(), walk_zeta.data());
  const char* what = sizeof(T) == 4 ? "f32" : "f64";
  if (walk_q == q_new || walk_psi == psi || walk_zeta == zeta) {
    std::printf("FAIL %s R=%d axis %d: the walk left an array as it was\n", what, R, axis);
    ++failures;
    return;
  }
  const int lines = tile_lines(ll.reach_hi - ll.reach_lo, ll.lines);
  if (lines == 0) return;  // no tile holds a line: the launcher walks
  auto tile_q = q_new, tile_psi = psi, tile_zeta = zeta;
  emu::launch(dim3(2), dim3(kLayerThreads), adjoint_layer_tiles<T, R>, q.data() + origin,
              tile_q.data() + origin, c2.data() + origin, L, ll, a.data(), b.data(),
              tile_psi.data(), tile_zeta.data(), lines);
  auto same = [](const std::vector<T>& x, const std::vector<T>& y) {
    return std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
  };
  if (!same(walk_q, tile_q) || !same(walk_psi, tile_psi) || !same(walk_zeta, tile_zeta)) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < walk_q.size(); ++i) differ += walk_q[i] != tile_q[i];
    std::printf(
        "FAIL %s R=%d %dx%dx%d, axis %d %s, %d deep, %d lines a tile: %zu values of "
        "q_new differ%s%s\n",
        what, R, nx, ny, nz, axis, low ? "low" : "high", width, lines, differ,
        same(walk_psi, tile_psi) ? "" : ", psi differs",
        same(walk_zeta, tile_zeta) ? "" : ", zeta differs");
    ++failures;
  }
}

template <class T, int R>
void every_face(unsigned seed) {
  for (int axis = 0; axis < 3; ++axis)
    for (bool low : {true, false}) {
      check<T, R>(19, 13, 11, axis, low, 5, seed++);  // odd sizes, many lines a tile
      check<T, R>(40, 21, 17, axis, low, 8, seed++);  // lines over several tiles and blocks
      check<T, R>(40, 30, 20, axis, low, 1, seed++);  // one deep: more lines a tile than threads
    }
  check<T, R>(700, 3, 4, 0, true, 600, seed++);   // one line a tile along x
  check<T, R>(5, 700, 3, 1, false, 600, seed++);  // and across x
}

}  // namespace

int main() {
  every_face<float, 1>(1);
  every_face<float, 2>(100);
  every_face<float, 3>(200);
  every_face<float, 4>(300);
  every_face<double, 1>(400);
  every_face<double, 4>(500);
  check<float, 4>(1300, 2, 2, 0, true, 1100, 900);  // longer than a tile: the walk alone
  std::printf("adjoint layer passes, tiles against the walk: %d cases, %d failed\n", cases,
              failures);
  return failures ? 1 : 0;
}
