// The imaging benchmark behind `strata bench --kernel imaging` (issue 40, item 5): one shot of
// the order-8 wave (16-point CPML on five faces, free top) run forward alone, as `strata wave`
// steps it, then its misfit gradient (forward, adjoint and the imaging condition, with the
// kept states a default budget holds, and with boundary saving), then reverse-time migration
// as `strata migrate --compensated` runs it (boundary saving, with the illumination the
// compensated image needs): each row's time over the forward run's (extra.ratio_to_forward), its
// Gpts/s over the shot's steps.
#pragma once

#include <string>
#include <vector>

#include "bench/bench.hpp"

namespace strata::bench {

// 64^3 and 100 steps on the CPU, 256^3 and 400 on the GPU by default (opt.shapes, and
// opt.precisions, default f32, override). Its members, each with the forward run it is
// measured against: imaging_checkpoints (the gradient with kept states), imaging_boundary_saving
// (with boundary saving: item 5's row), imaging_migrate (the compensated migration); the
// family whole adds the comparison rows (each strategy's correlation as a pass of its own, the
// reversed steps updating the layers).
std::vector<std::string> imaging_members();
std::vector<Result> imaging_cpu(const Options& opt);
std::vector<Result> imaging_cuda(const Options& opt);

}  // namespace strata::bench
