// Progress of a wave run: the calls to on_progress (progress.hpp) and their text.
#include "drivers/wave/progress.hpp"

#include <cmath>
#include <cstdio>

namespace strata::wave {

void ProgressClock::report(int n, bool final) {
  if (!opt.on_progress) return;
  last = Clock::now();
  Progress p;
  p.step = n;
  p.first_step = first;
  p.last_step = total;
  p.elapsed_s = seconds_since(start);
  const double rate = n > first && p.elapsed_s > 0 ? (n - first) / p.elapsed_s : 0;  // steps/s
  p.gpts_per_s = rate * points / 1e9;
  p.eta_s = rate > 0 ? (total - n) / rate : NAN;
  p.final = final;
  opt.on_progress(p);
}

namespace {
std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = std::lround(s);
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
  return b;
}
}  // namespace

std::string to_text(const Progress& p) {
  const int total = p.last_step;
  char line[256];
  std::snprintf(line, sizeof line, "step %d/%d  %5.1f%%  %.3g Gpts/s  elapsed %s  ETA %s", p.step,
                total, total ? 100.0 * p.step / total : 100.0, p.gpts_per_s,
                clock_text(p.elapsed_s).c_str(), clock_text(p.eta_s).c_str());
  return line;
}

}  // namespace strata::wave
