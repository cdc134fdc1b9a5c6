// Binomial checkpointing (solvers/imaging/checkpointing.hpp): every schedule is replayed on a
// toy forward state (its step and a hash of its history) and checked against a brute-force
// dynamic programme and an independent Pascal-triangle closed form; budgets and their refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backend/wave.hpp"
#include "solvers/imaging/checkpointing.hpp"
#include "solvers/wave/plan.hpp"
#include "strata/error.hpp"

namespace strata::imaging {
namespace {

using Action = CheckpointAction;
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max() / 4;

// The toy forward state: a step restored from the wrong slot, or advanced from the wrong
// state, carries the wrong step or the wrong hash.
struct Toy {
  int step = 0;
  std::uint64_t hash = 0x9e3779b97f4a7c15ull;
  void advance() {
    hash = (hash ^ std::uint64_t(step)) * 0x100000001b3ull;
    hash ^= hash >> 29;
    ++step;
  }
};

struct Counts {
  std::int64_t forward = 0, stores = 0;
  int most_live = 0;      // slots held at once
  int most_advances = 0;  // times the most advanced step ran
};

// Replays actions as a driver would, checking each; returns the first problem ("" for none).
// `next` gives the actions in order, then an empty optional.
template <class Next>
std::string replay(int steps, int checkpoints, Next next, Counts& n) {
  std::vector<Toy> truth(std::size_t(std::max(steps, 1)));
  for (int i = 1; i < steps; ++i) (truth[i] = truth[i - 1]).advance();
  std::vector<int> advances(truth.size(), 0);
  std::vector<std::optional<Toy>> slot(static_cast<std::size_t>(checkpoints));
  Toy live;
  int live_slots = 0, adjoint_next = steps - 1, index = 0;
  for (auto a = next(); a; a = next(), ++index) {
    const std::string at = "action " + std::to_string(index) + " (" + to_string(*a) + "): ";
    if (adjoint_next < 0) return at + "after the last adjoint step";
    const bool slot_ok = a->slot >= 0 && a->slot < checkpoints;
    switch (a->kind) {
      case Action::advance:
        if (a->step != live.step) return at + "the live state is at " + std::to_string(live.step);
        if (a->to <= a->step || a->to >= steps) return at + "not a forward run within 0 .. S-1";
        while (live.step < a->to) {
          ++advances[std::size_t(live.step)];
          live.advance();
          ++n.forward;
        }
        break;
      case Action::store:
        if (!slot_ok || slot[a->slot]) return at + "not a free slot";
        if (a->slot != live_slots) return at + "not the lowest free slot";
        if (a->step != live.step) return at + "the live state is at " + std::to_string(live.step);
        slot[a->slot] = live;
        n.most_live = std::max(n.most_live, ++live_slots);
        ++n.stores;
        break;
      case Action::restore:
        if (!slot_ok || !slot[a->slot]) return at + "an empty slot";
        if (slot[a->slot]->step != a->step) return at + "the slot holds another step";
        live = *slot[a->slot];
        if (a->release) {
          if (a->slot != live_slots - 1) return at + "releases a slot below the top";
          slot[a->slot].reset();
          --live_slots;
        }
        break;
      case Action::adjoint:
        if (a->step != adjoint_next) return at + "expected adjoint " + std::to_string(adjoint_next);
        if (live.step != a->step || live.hash != truth[a->step].hash)
          return at + "the live state is not x_" + std::to_string(a->step);
        --adjoint_next;
        break;
    }
  }
  if (adjoint_next != -1) return "ended before adjoint step " + std::to_string(adjoint_next);
  if (live_slots != 0) return "ended with " + std::to_string(live_slots) + " slots held";
  n.most_advances = *std::max_element(advances.begin(), advances.end());
  return "";
}

std::string replay_lazily(int steps, int checkpoints, Counts& n) {
  CheckpointSchedule s(steps, checkpoints);
  return replay(
      steps, checkpoints, [&] { return s.next(); }, n);
}

std::string replay_plan(int steps, int checkpoints, Counts& n) {
  const std::vector<Action> plan = plan_checkpoints(steps, checkpoints);
  std::size_t i = 0;
  return replay(
      steps, checkpoints,
      [&]() -> std::optional<Action> {
        if (i == plan.size()) return std::nullopt;
        return plan[i++];
      },
      n);
}

// The classic recursion: reversing l steps from x_0 with c slots, x_0 stored first, the
// first cut at m: m steps forward, the right part with the other c - 1 slots, then the left
// part from x_0 again. t(1, c) = 0; t(l >= 2, 0) is impossible.
std::vector<std::vector<std::int64_t>> brute_force(int max_steps, int max_checkpoints) {
  std::vector<std::vector<std::int64_t>> t(std::size_t(max_steps) + 1,
                                           std::vector<std::int64_t>(max_checkpoints + 1, kNever));
  for (int c = 0; c <= max_checkpoints; ++c) t[0][c] = t[1][c] = 0;
  for (int l = 2; l <= max_steps; ++l)
    for (int c = 1; c <= max_checkpoints; ++c)
      for (int m = 1; m < l; ++m)
        if (t[l - m][c - 1] < kNever) t[l][c] = std::min(t[l][c], m + t[l - m][c - 1] + t[m][c]);
  return t;
}

// t(S, C) = r S - beta(C + 1, r - 1), with beta from Pascal's rule beta(c, r) = beta(c - 1, r)
// + beta(c, r - 1) (not the library's products), grown until beta(C, r) >= S.
std::int64_t closed_form(int steps, int checkpoints) {
  if (steps <= 1) return 0;
  const int c_max = std::min(checkpoints, steps - 1) + 1;
  std::vector<std::vector<std::int64_t>> beta(1, std::vector<std::int64_t>(c_max + 1, 1));
  for (int r = 1; beta[r - 1][c_max - 1] < steps; ++r) {
    beta.emplace_back(c_max + 1, 1);
    for (int c = 1; c <= c_max; ++c) beta[r][c] = beta[r][c - 1] + beta[r - 1][c];
  }
  const int r = int(beta.size()) - 1;
  return std::int64_t(r) * steps - beta[r - 1][c_max];
}

TEST(Revolve, EveryScheduleUpTo200StepsAnd12SlotsIsOptimalAndReversesCorrectly) {
  const int max_steps = 200, max_c = 12;
  const auto best = brute_force(max_steps, max_c);
  for (int s = 1; s <= max_steps; ++s)
    for (int c = 1; c <= max_c; ++c) {
      Counts n;
      const std::string problem = replay_plan(s, c, n);
      ASSERT_EQ(problem, "") << "S = " << s << ", C = " << c;
      ASSERT_EQ(n.forward, best[s][c]) << "S = " << s << ", C = " << c;
      ASSERT_EQ(optimal_forward_steps(s, c), n.forward) << "S = " << s << ", C = " << c;
      ASSERT_EQ(closed_form(s, c), n.forward) << "S = " << s << ", C = " << c;
      ASSERT_EQ(n.most_live, slots_used(s, c));
      ASSERT_LE(n.most_live, c);
      ASSERT_EQ(n.most_advances, repetitions(s, c)) << "S = " << s << ", C = " << c;
    }
}

TEST(Revolve, ClosedFormMatchesTheRecursionWithMoreSlotsThanSteps) {
  const auto best = brute_force(60, 70);
  for (int s = 0; s <= 60; ++s)
    for (int c = 1; c <= 70; ++c)
      ASSERT_EQ(optimal_forward_steps(s, c), best[s][c]) << "S = " << s << ", C = " << c;
  // One slot: x_0 only, every state recomputed from it. Enough slots: nothing recomputed.
  EXPECT_EQ(optimal_forward_steps(1000, 1), 1000 * 999 / 2);
  EXPECT_EQ(optimal_forward_steps(1000, 999), 999);
  EXPECT_EQ(optimal_forward_steps(1000, 5000), 999);
  EXPECT_EQ(optimal_forward_steps(1000, 998), 1000);  // one step recomputed
}

TEST(Revolve, LargeCasesMatchTheClosedForm) {
  struct Case {
    int steps, checkpoints;
  };
  for (const Case k : {Case{1000000, 10}, Case{100000, 2}, Case{5000, 1}, Case{1000000, 200},
                       Case{65537, 16}, Case{2000, 50}}) {
    Counts n;
    ASSERT_EQ(replay_lazily(k.steps, k.checkpoints, n), "")
        << "S = " << k.steps << ", C = " << k.checkpoints;
    EXPECT_EQ(n.forward, closed_form(k.steps, k.checkpoints)) << "S = " << k.steps;
    EXPECT_EQ(optimal_forward_steps(k.steps, k.checkpoints), n.forward) << "S = " << k.steps;
    EXPECT_EQ(n.most_advances, repetitions(k.steps, k.checkpoints)) << "S = " << k.steps;
    EXPECT_EQ(n.most_live, std::min(k.checkpoints, k.steps - 1));
  }
  // 10^6 steps and 10 slots: beta(10, 12) = 646646 < 10^6 <= beta(10, 13) = 1144066.
  EXPECT_EQ(repetitions(1000000, 10), 13);
  EXPECT_EQ(optimal_forward_steps(1000000, 10), 13LL * 1000000 - 1352078);  // beta(11, 12)
}

TEST(Revolve, BinomialIsExactBelowItsCapAndCappedAbove) {
  EXPECT_EQ(binomial_steps(0, 7, 100), 1);
  EXPECT_EQ(binomial_steps(7, 0, 100), 1);
  EXPECT_EQ(binomial_steps(1, 41, 100), 42);
  EXPECT_EQ(binomial_steps(10, 13, 1 << 30), 1144066);
  EXPECT_EQ(binomial_steps(13, 10, 1 << 30), 1144066);
  EXPECT_EQ(binomial_steps(10, 13, 1000000), 1000000);
  EXPECT_EQ(binomial_steps(30, 30, std::int64_t(1) << 31), std::int64_t(1) << 31);  // 1.2e17
  EXPECT_EQ(binomial_steps(2147483647, 2147483647, 5), 5);
  EXPECT_THROW(binomial_steps(-1, 2, 5), Error);
}

TEST(Revolve, SmallSchedulesAreSpelledOut) {
  EXPECT_TRUE(plan_checkpoints(0, 0).empty());
  EXPECT_TRUE(plan_checkpoints(0, 3).empty());
  const std::vector<Action> one = {{Action::adjoint, 0}};
  EXPECT_EQ(plan_checkpoints(1, 0), one);  // the live state is x_0: no checkpoint needed
  EXPECT_EQ(plan_checkpoints(1, 4), one);
  // Three steps, one slot: x_0 stored, x_2 and x_1 recomputed from it.
  std::vector<std::string> got;
  for (const Action& a : plan_checkpoints(3, 1)) got.push_back(to_string(a));
  EXPECT_EQ(got, (std::vector<std::string>{"store 0 in 0", "advance 0 -> 2", "adjoint 2",
                                           "restore 0 from 0", "advance 0 -> 1", "adjoint 1",
                                           "restore 0 from 0 (release)", "adjoint 0"}));
  // Enough slots: every state stored once, each restored and released once.
  got.clear();
  for (const Action& a : plan_checkpoints(3, 9)) got.push_back(to_string(a));
  EXPECT_EQ(got,
            (std::vector<std::string>{"store 0 in 0", "advance 0 -> 1", "store 1 in 1",
                                      "advance 1 -> 2", "adjoint 2", "restore 1 from 1 (release)",
                                      "adjoint 1", "restore 0 from 0 (release)", "adjoint 0"}));
}

TEST(Revolve, RefusesImpossibleRequests) {
  auto message = [](auto f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { plan_checkpoints(2, 0); }),
            "checkpointing: reversing 2 steps needs at least one checkpoint (of the first "
            "state); 0 were given");
  EXPECT_EQ(message([] { CheckpointSchedule(10, 0); }),
            "checkpointing: reversing 10 steps needs at least one checkpoint (of the first "
            "state); 0 were given");
  EXPECT_EQ(message([] { optimal_forward_steps(-1, 3); }),
            "checkpointing: the number of steps must be >= 0, not -1");
  EXPECT_EQ(message([] { repetitions(5, -2); }),
            "checkpointing: the number of checkpoints must be >= 0, not -2");
}

TEST(CheckpointBudget, SlotsFromBytesAndRefusalsNameTheMinimum) {
  EXPECT_EQ(checkpoints_for_budget(1000, 1000), 1);
  EXPECT_EQ(checkpoints_for_budget(1000, 10999), 10);
  EXPECT_EQ(checkpoints_for_budget(1, std::uint64_t(1) << 40), 2147483647);
  try {
    checkpoints_for_budget(1283457024, 1000000000);
    ADD_FAILURE() << "a budget below one checkpoint was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "checkpointing: a memory budget of 1000000000 bytes holds no checkpoint: one "
              "takes 1283457024 bytes, the least budget that works");
  }
  EXPECT_THROW(checkpoints_for_budget(0, 100), Error);
  EXPECT_THROW(checkpoint_report_for_budget(2000, 1000, 999), Error);
  // One step needs no checkpoint: any budget.
  const CheckpointReport one = checkpoint_report_for_budget(1, 1000, 0);
  EXPECT_EQ(one.slots, 0);
  EXPECT_EQ(one.memory_bytes, 0u);
  EXPECT_EQ(one.forward_steps, 0);
}

TEST(CheckpointBudget, ReportCountsWhatTheScheduleDoes) {
  const std::uint64_t bytes = 1000;
  // 10.5 checkpoints' worth: 10 slots.
  const CheckpointReport r = checkpoint_report_for_budget(2000, bytes, 10500);
  EXPECT_EQ(r.steps, 2000);
  EXPECT_EQ(r.slots, 10);
  EXPECT_EQ(r.memory_bytes, 10000u);
  EXPECT_EQ(r.bytes_per_checkpoint, bytes);
  Counts n;
  ASSERT_EQ(replay_lazily(2000, 10, n), "");
  EXPECT_EQ(r.forward_steps, n.forward);
  EXPECT_EQ(r.stores, n.stores);
  EXPECT_EQ(r.repetitions, n.most_advances);
  EXPECT_DOUBLE_EQ(r.recomputation, double(n.forward) / 2000);
  // A budget beyond every state: S - 1 slots, each step run once.
  const CheckpointReport all = checkpoint_report_for_budget(2000, bytes, 1u << 30);
  EXPECT_EQ(all.slots, 1999);
  EXPECT_EQ(all.memory_bytes, 1999u * bytes);
  EXPECT_EQ(all.forward_steps, 1999);
  EXPECT_EQ(all.stores, 1999);
  EXPECT_EQ(all.repetitions, 1);
  EXPECT_EQ(checkpoint_report(0, 0, bytes).recomputation, 0.0);
}

// The table in docs/imaging.md: S = 2000 steps with 5, 10, 20, 50 and 1999 (all) checkpoints
// of the 512^3 f32 state below.
TEST(CheckpointBudget, DocsTableFor2000Steps) {
  struct Row {
    int checkpoints, repetitions;
    std::int64_t forward, stores;
    double factor, gigabytes;  // as printed
  };
  for (const Row& row : {Row{5, 9, 14997, 713, 7.50, 6.4}, Row{10, 5, 8635, 1300, 4.32, 12.8},
                         Row{20, 4, 5976, 1675, 2.99, 25.7}, Row{50, 3, 4622, 1829, 2.31, 64.2},
                         Row{1999, 1, 1999, 1999, 1.00, 2566}}) {
    const CheckpointReport r = checkpoint_report(2000, row.checkpoints, 1283457024);
    EXPECT_EQ(r.repetitions, row.repetitions) << "C = " << row.checkpoints;
    EXPECT_EQ(r.forward_steps, row.forward) << "C = " << row.checkpoints;
    EXPECT_EQ(r.stores, row.stores) << "C = " << row.checkpoints;
    EXPECT_NEAR(r.recomputation, row.factor, 0.005) << "C = " << row.checkpoints;
    EXPECT_NEAR(double(r.memory_bytes) / 1e9, row.gigabytes, row.gigabytes < 100 ? 0.05 : 0.5)
        << "C = " << row.checkpoints;
  }
}

// docs/imaging.md's 512^3 f32 state per checkpoint: u, u_prev and the CPML memory (psi and
// zeta of each of the five absorbing faces, 20 points thick; the top is free), as the wave
// solver's Setup sizes them.
TEST(CheckpointBudget, A512CubedWaveStateAsTheSolverSizesIt) {
  wave::Config c;
  c.shape = {512, 512, 512};
  c.pml_width = 20;
  c.device = Device::cpu;
  const std::vector<float> planes(512, 2000.0f);
  const wave::Setup s = wave::resolve<float>(c, planes).setup;
  std::uint64_t values = 0;
  for (const wave::StateSlot& slot : wave::state_slots(s)) values += wave::state_size(slot, s);
  const std::uint64_t n = 512;
  EXPECT_EQ(values, 2 * n * n * n + 5 * 2 * 20 * n * n);
  EXPECT_EQ(values * sizeof(float), 1283457024u);
}

}  // namespace
}  // namespace strata::imaging
