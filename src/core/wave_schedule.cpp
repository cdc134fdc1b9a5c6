// The layer-aware block schedule of the fused GPU pass (see wave_schedule.hpp): job costs
// from the footprint model, list scheduling of the chunk-by-chunk, heaviest-first order
// onto the slots.
#include "core/wave_schedule.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>

#include "strata/error.hpp"

namespace strata::wave {

namespace {

int overlap(int a0, int a1, int b0, int b1) { return std::max(0, std::min(a1, b1) - std::max(a0, b0)); }

// Values moved by each block (tile + chunk * tiles) of a split into `chunks` z chunks.
std::vector<double> job_costs(Extent n, int radius, const TileShape& t, const std::vector<PmlFace>& layers,
                              int chunks) {
  const int tiles_x = (n.nx + t.tx - 1) / t.tx, tiles_y = (n.ny + t.ty - 1) / t.ty, tiles = tiles_x * tiles_y;
  const int len = (n.nz + chunks - 1) / chunks;
  std::vector<double> cost(std::size_t(tiles) * chunks);
  for (int c = 0; c < chunks; ++c)
    for (int ty = 0; ty < tiles_y; ++ty)
      for (int tx = 0; tx < tiles_x; ++tx) {
        const int x0 = tx * t.tx, x1 = std::min(n.nx, x0 + t.tx);
        const int y0 = ty * t.ty, y1 = std::min(n.ny, y0 + t.ty);
        const int z0 = c * len, z1 = std::min(n.nz, z0 + len);
        const double area = double(x1 - x0) * (y1 - y0);
        double layer_points = 0;
        for (const PmlFace& f : layers)
          layer_points += double(overlap(x0, x1, f.lo[0], f.hi[0])) * overlap(y0, y1, f.lo[1], f.hi[1]) *
                          overlap(z0, z1, f.lo[2], f.hi[2]);
        cost[std::size_t(c) * tiles + std::size_t(ty) * tiles_x + tx] =
            kPointWords * area * (z1 - z0) + area * (2 * radius + t.stages - 1) + kLayerWords * layer_points;
      }
  return cost;
}

struct Modelled {
  double cost = 0;
  std::vector<int> order;
};

// Chunk by chunk, heaviest first within a chunk, list-scheduled onto the slots: the larger
// of the even spread and the busiest slot at the headroom one SM has when others idle.
Modelled model(const std::vector<double>& cost, int tiles, int slots) {
  Modelled m;
  m.order.resize(cost.size());
  std::iota(m.order.begin(), m.order.end(), 0);
  std::stable_sort(m.order.begin(), m.order.end(), [&](int a, int b) {
    return a / tiles != b / tiles ? a / tiles < b / tiles : cost[a] > cost[b];
  });
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (int s = 0; s < slots; ++s) free_at.push(0.0);
  double busiest = 0, total = 0;
  for (int j : m.order) {
    const double end = free_at.top() + cost[j];
    free_at.pop();
    free_at.push(end);
    busiest = std::max(busiest, end);
    total += cost[j];
  }
  m.cost = std::max(total / slots, busiest / kSmHeadroomModel);
  return m;
}

}  // namespace

BlockSchedule schedule_blocks(Extent n, int radius, const TileShape& shape, const std::vector<PmlFace>& layers) {
  require(shape.tx > 0 && shape.ty > 0 && shape.slots > 0 && n.nz > 0, "internal: bad tile shape for the schedule");
  constexpr int kMaxChunks = 16;
  BlockSchedule best;
  double best_cost = 1e300, best_even = 1e300;
  for (int chunks = 1; chunks <= std::min(kMaxChunks, n.nz); ++chunks) {
    const int len = (n.nz + chunks - 1) / chunks;
    if (chunks > 1 && (chunks - 1) * len >= n.nz) continue;  // the same split as fewer chunks
    const int tiles = ((n.nx + shape.tx - 1) / shape.tx) * ((n.ny + shape.ty - 1) / shape.ty);
    Modelled m = model(job_costs(n, radius, shape, layers, chunks), tiles, shape.slots);
    best_even = std::min(best_even, model(job_costs(n, radius, shape, {}, chunks), tiles, shape.slots).cost);
    if (m.cost < best_cost * 0.999) {
      best_cost = m.cost;
      best.zchunks = chunks;
      best.order = std::move(m.order);
    }
  }
  best.cost = best_cost;
  best.even_cost = best_even;
  return best;
}

}  // namespace strata::wave
