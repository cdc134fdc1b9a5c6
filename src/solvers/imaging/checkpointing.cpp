// Binomial checkpointing: the closed forms and the recursive schedule, unrolled onto an
// explicit stack of segments (at most C + 1 deep) so that it is generated one action at a
// time. Integer arithmetic throughout, exact for every S and C below 2^31.
#include "solvers/imaging/checkpointing.hpp"

#include <algorithm>
#include <climits>

#include "strata/error.hpp"

namespace strata::imaging {

namespace {

void check(int steps, int checkpoints) {
  require(steps >= 0,
          "checkpointing: the number of steps must be >= 0, not " + std::to_string(steps));
  require(checkpoints >= 0, "checkpointing: the number of checkpoints must be >= 0, not " +
                                std::to_string(checkpoints));
  require(checkpoints >= 1 || steps <= 1,
          "checkpointing: reversing " + std::to_string(steps) +
              " steps needs at least one checkpoint (of the first state); 0 were given");
}

// beta(c, r), 0 for r < 0 (the split point asks for beta(c, r - 2) with r = 1).
std::int64_t beta(int c, int r, std::int64_t cap) { return r < 0 ? 0 : binomial_steps(c, r, cap); }

int repetitions_unchecked(int steps, int c) {
  if (steps <= 1) return 0;
  // beta(c, steps - 1) >= steps for c >= 1: search up to there, doubling, then bisecting.
  int lo = 0, hi = 1;  // beta(c, lo) < steps
  while (binomial_steps(c, hi, steps) < steps) {
    lo = hi;
    hi = hi > (steps - 1) / 2 ? steps - 1 : 2 * hi;
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (binomial_steps(c, mid, steps) < steps ? lo : hi) = mid;
  }
  return hi;
}

// The smallest optimal first cut m of `length` >= 2 steps with c >= 1 slots: the left part
// (m steps, c slots, its start stored already) costs beta's line of slope r - 1 and the
// right part (length - m steps, c - 1 slots) the line of slope r when
//   beta(c, r-2) <= m <= beta(c, r-1)  and  beta(c-1, r-1) <= length - m <= beta(c-1, r),
// then m + t(m, c) + t(length - m, c - 1) = t(length, c) (Pascal's rule); these ranges meet
// because beta(c, r-1) < length <= beta(c, r) = beta(c, r-1) + beta(c-1, r).
int split_point(int length, int c) {
  const int r = repetitions_unchecked(length, c);
  const std::int64_t right_max = binomial_steps(c - 1, r, length);  // capped: beyond, no bound
  const std::int64_t m = std::max<std::int64_t>(beta(c, r - 2, length), length - right_max);
  return int(std::max<std::int64_t>(m, 1));
}

}  // namespace

std::int64_t binomial_steps(int c, int r, std::int64_t cap) {
  require(c >= 0 && r >= 0, "binomial_steps: c and r must be >= 0");
  require(cap >= 1 && cap <= (std::int64_t(1) << 31), "binomial_steps: cap must be in [1, 2^31]");
  // binom(n, k), k = min(c, r), as binom(n - k + i, i) for i = 1 .. k: increasing in i, each
  // exact, and the product < cap * n < 2^63.
  const std::int64_t n = std::int64_t(c) + r;
  const int k = std::min(c, r);
  std::int64_t x = 1;
  for (int i = 1; i <= k && x < cap; ++i) x = x * (n - k + i) / i;
  return std::min(x, cap);
}

int repetitions(int steps, int checkpoints) {
  check(steps, checkpoints);
  return repetitions_unchecked(steps, slots_used(steps, checkpoints));
}

std::int64_t optimal_forward_steps(int steps, int checkpoints) {
  const int r = repetitions(steps, checkpoints);
  if (r == 0) return 0;
  const int c = slots_used(steps, checkpoints);
  // beta(c + 1, r - 1) = sum_{j < r} beta(c, j), each term below S (j < r): no overflow.
  std::int64_t sum = 0, term = 1;  // term = beta(c, j)
  for (int j = 0; j < r; ++j) {
    sum += term;
    term = term * (std::int64_t(c) + j + 1) / (j + 1);
  }
  return std::int64_t(r) * steps - sum;
}

int slots_used(int steps, int checkpoints) {
  check(steps, checkpoints);
  return steps <= 1 ? 0 : std::min(checkpoints, steps - 1);
}

std::string to_string(const CheckpointAction& a) {
  const std::string n = std::to_string(a.step), k = std::to_string(a.slot);
  switch (a.kind) {
    case CheckpointAction::advance:
      return "advance " + n + " -> " + std::to_string(a.to);
    case CheckpointAction::store:
      return "store " + n + " in " + k;
    case CheckpointAction::restore:
      return "restore " + n + " from " + k + (a.release ? " (release)" : "");
    case CheckpointAction::adjoint:
      return "adjoint " + n;
  }
  return "?";
}

CheckpointSchedule::CheckpointSchedule(int steps, int checkpoints)
    : steps_(steps), slots_(slots_used(steps, checkpoints)) {
  stack_.reserve(std::size_t(slots_) + 1);
  if (steps_ > 0) stack_.push_back({0, steps_, slots_, 0});
}

std::optional<CheckpointAction> CheckpointSchedule::next() {
  while (!stack_.empty()) {
    Segment& s = stack_.back();
    switch (s.stage) {
      case Segment::enter:
        s.stage = Segment::cut;
        if (s.length > 1) return CheckpointAction{CheckpointAction::store, s.start, 0, s.slot};
        break;
      case Segment::cut: {
        if (s.length == 1) {
          const int n = s.start;
          stack_.pop_back();
          return CheckpointAction{CheckpointAction::adjoint, n};
        }
        s.split = split_point(s.length, s.free_slots);
        s.stage = Segment::returned;
        const int from = s.start, to = s.start + s.split;
        const Segment right{to, s.length - s.split, s.free_slots - 1, s.slot + 1};
        stack_.push_back(right);  // s is not used after this
        return CheckpointAction{CheckpointAction::advance, from, to};
      }
      case Segment::returned:
        s.length = s.split;
        s.stage = Segment::cut;
        return CheckpointAction{CheckpointAction::restore, s.start, 0, s.slot, s.split == 1};
    }
  }
  return std::nullopt;
}

std::vector<CheckpointAction> plan_checkpoints(int steps, int checkpoints) {
  std::vector<CheckpointAction> out;
  CheckpointSchedule s(steps, checkpoints);
  out.reserve(4 * std::size_t(steps));
  while (auto a = s.next()) out.push_back(*a);
  return out;
}

int checkpoints_for_budget(std::uint64_t bytes_per_checkpoint, std::uint64_t budget_bytes) {
  require(bytes_per_checkpoint > 0, "checkpointing: a checkpoint must hold at least one byte");
  require(budget_bytes >= bytes_per_checkpoint,
          "checkpointing: a memory budget of " + std::to_string(budget_bytes) +
              " bytes holds no checkpoint: one takes " + std::to_string(bytes_per_checkpoint) +
              " bytes, the least budget that works");
  return int(std::min<std::uint64_t>(budget_bytes / bytes_per_checkpoint, INT_MAX));
}

CheckpointReport checkpoint_report(int steps, int checkpoints, std::uint64_t bytes_per_checkpoint) {
  CheckpointReport r;
  r.steps = steps;
  r.slots = slots_used(steps, checkpoints);
  r.repetitions = repetitions(steps, checkpoints);
  r.forward_steps = optimal_forward_steps(steps, checkpoints);
  for (CheckpointSchedule s(steps, checkpoints); auto a = s.next();)
    r.stores += a->kind == CheckpointAction::store;
  r.recomputation = steps > 0 ? double(r.forward_steps) / steps : 0.0;
  r.bytes_per_checkpoint = bytes_per_checkpoint;
  r.memory_bytes = std::uint64_t(r.slots) * bytes_per_checkpoint;
  return r;
}

CheckpointReport checkpoint_report_for_budget(int steps, std::uint64_t bytes_per_checkpoint,
                                              std::uint64_t budget_bytes) {
  const int c = steps <= 1 && budget_bytes < bytes_per_checkpoint
                    ? 0
                    : checkpoints_for_budget(bytes_per_checkpoint, budget_bytes);
  return checkpoint_report(steps, c, bytes_per_checkpoint);
}

}  // namespace strata::imaging
