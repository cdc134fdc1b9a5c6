// Optimal checkpointing for running an adjoint backward over S forward steps with C states
// held in memory (binomial checkpointing, Griewank & Walther, ACM TOMS 26(1), 2000): the
// schedule, its cost in closed form, and the number of checkpoints a memory budget buys.
// Numbers only: no field, no backend, no I/O. A driver replays the schedule's actions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::imaging {

// The model. Forward states x_0 .. x_{S-1}; step n maps x_n to x_{n+1}. Adjoint step n needs
// x_n, for n = S-1 down to 0. One forward state is live (the one the forward solver works
// on, x_0 at the start); C slots hold copies. x_{S-1} is used where it is computed, so the
// forward step S-1 -> S is never run: a caller whose adjoint step n also needs x_{n+1}
// plans S + 1 steps. The live forward state and the adjoint state are not slots.
//
// beta(C, r) = binom(C + r, C) is the most steps C slots reverse when no step is advanced
// more than r times. The repetition number r(S, C) is the least r with beta(C, r) >= S,
// and the fewest forward steps any schedule runs is
//   t(S, C) = r S - beta(C + 1, r - 1)         (beta(., -1) = 0)
// (S - 1 for C >= S - 1: every state stored, nothing recomputed; S (S - 1) / 2 for C = 1).

// binom(c + r, c) for c, r >= 0, or `cap` when it is >= cap (cap <= 2^31): exact below.
std::int64_t binomial_steps(int c, int r, std::int64_t cap);

// r(S, C); 0 for S <= 1. Throws Error for S < 0, C < 0, or C = 0 with S >= 2.
int repetitions(int steps, int checkpoints);

// t(S, C), the forward steps of the optimal schedule (plan_checkpoints runs exactly these).
// Throws as repetitions.
std::int64_t optimal_forward_steps(int steps, int checkpoints);

// The slots a schedule holds at once: min(C, S - 1), 0 for S <= 1 (one step needs none).
int slots_used(int steps, int checkpoints);

// One action of a schedule. What the driver does for each:
//   advance   run forward steps n = step .. to - 1 (the live state goes from x_step to x_to)
//   store     copy the live state (x_step) into `slot`, which is free
//   restore   copy `slot` (x_step) into the live state; with `release` this is the slot's
//             last use: it is free afterwards, so its contents may be moved, not copied
//   adjoint   run adjoint step `step` with the live state, which is x_step
// Slots are used as a stack: a store takes the lowest free slot, a release frees the
// highest one in use. Another strategy (saving the absorbing layers' inner edge each step
// and running the forward field backward) would add kinds of its own, not change these.
struct CheckpointAction {
  enum Kind { advance, store, restore, adjoint };
  Kind kind = advance;
  int step = 0;
  int to = 0;    // advance only
  int slot = 0;  // store and restore
  bool release = false;
  bool operator==(const CheckpointAction&) const = default;
};

std::string to_string(const CheckpointAction& a);  // "advance 0 -> 5", "store 0 in 1", ...

// The optimal schedule, generated lazily: next() gives the actions in order, then nullopt.
// O(C) memory; each split point costs O(min(C, r) log r), so all of it O(S min(C, r) log r)
// time for at most 4 S actions (S adjoints, S - 1 advances and restores, at most S - 1
// stores). Of the optimal split points it takes the smallest, which writes fewer checkpoints
// than the largest (1829 against 1933 for S = 2000, C = 50) but not always the fewest an
// optimal schedule can. Throws as repetitions.
//
//   for (CheckpointSchedule s(S, C); auto a = s.next();)
//     switch (a->kind) { case CheckpointAction::advance: ... }
class CheckpointSchedule {
 public:
  CheckpointSchedule(int steps, int checkpoints);
  std::optional<CheckpointAction> next();
  int steps() const { return steps_; }
  int slots() const { return slots_; }

 private:
  // A segment to reverse: x_start is live on entry; x_start goes to `slot` when the segment
  // is longer than one step; `free_slots` slots (its own included) are its to use.
  struct Segment {
    int start = 0, length = 0, free_slots = 0, slot = 0, split = 0;
    enum Stage { enter, cut, returned } stage = enter;
  };
  int steps_ = 0, slots_ = 0;
  std::vector<Segment> stack_;
};

// The whole schedule at once: O(S) memory (at most 4 S actions).
std::vector<CheckpointAction> plan_checkpoints(int steps, int checkpoints);

// The checkpoints a memory budget holds: floor(budget / bytes per checkpoint), at most
// 2^31 - 1. Throws Error for 0 bytes per checkpoint, or a budget below one checkpoint
// (naming the minimum).
int checkpoints_for_budget(std::uint64_t bytes_per_checkpoint, std::uint64_t budget_bytes);

// What a schedule costs. memory_bytes counts the slots only (slots x bytes_per_checkpoint),
// not the live forward and adjoint states every schedule holds.
struct CheckpointReport {
  int steps = 0;
  int slots = 0;                   // slots_used: no more than steps - 1
  int repetitions = 0;             // no forward step runs more than this many times
  std::int64_t forward_steps = 0;  // t(S, C)
  std::int64_t stores = 0;         // checkpoint writes
  double recomputation = 0;        // forward_steps / steps (0 for no steps)
  std::uint64_t bytes_per_checkpoint = 0;
  std::uint64_t memory_bytes = 0;
};

// For C checkpoints; `stores` is counted by generating the schedule (O(S) actions).
CheckpointReport checkpoint_report(int steps, int checkpoints, std::uint64_t bytes_per_checkpoint);
// For what the budget holds (checkpoints_for_budget); throws as it does, except that a run
// of S <= 1 steps needs no checkpoint and takes any budget.
CheckpointReport checkpoint_report_for_budget(int steps, std::uint64_t bytes_per_checkpoint,
                                              std::uint64_t budget_bytes);

}  // namespace strata::imaging
