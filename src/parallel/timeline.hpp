// The marks of one overlapped distributed apply, recorded when a benchmark asks for them
// (CUDA events with timing; nothing is recorded otherwise): the timeline that shows whether
// the halo exchange hides behind the interior.
#pragma once

namespace strata::dist::timeline {

struct ApplyMarks {
  bool on = false;
  // 0 start (compute stream), 1 halos in (halo stream), 2 interior done (compute stream),
  // 3 shell done (halo stream)
  void* ev[4] = {};
};
ApplyMarks& apply_marks();

}  // namespace strata::dist::timeline
