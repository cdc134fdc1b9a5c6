// The wavefield's NaN/Inf check of a wave run (finite_check.hpp).
#include "drivers/wave/finite_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata::wave {

namespace {

// The index of the first NaN or Inf in v (v.size() when there is none).
template <class T>
std::size_t first_non_finite(const std::vector<T>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(double(v[i]))) return i;
  return v.size();
}

// Where u (this rank's box, dense, at `offset` in the grid) is NaN or Inf: how many, the
// box that holds them all and the first one, in grid indices and metres.
template <class T>
std::string non_finite_places(const std::vector<T>& u, Extent box, std::array<int, 3> offset,
                              double h, const Partition* part) {
  const std::size_t first = first_non_finite<T>(u);
  const std::size_t nx = std::size_t(box.nx), ny = std::size_t(box.ny);
  std::size_t count = 0;
  int lo[3] = {1 << 30, 1 << 30, 1 << 30}, hi[3] = {-1, -1, -1};
  for (std::size_t i = first; i < u.size(); ++i) {
    if (std::isfinite(double(u[i]))) continue;
    ++count;
    const int q[3] = {int(i % nx), int(i / nx % ny), int(i / nx / ny)};
    for (int a = 0; a < 3; ++a)
      lo[a] = std::min(lo[a], q[a] + offset[a]), hi[a] = std::max(hi[a], q[a] + offset[a]);
  }
  const int x = int(first % nx) + offset[0], y = int(first / nx % ny) + offset[1],
            z = int(first / nx / ny) + offset[2];
  char where[512];
  std::snprintf(
      where, sizeof where,
      "%zu of %zu values%s are NaN or Inf, within x %d..%d, y %d..%d, z %d..%d (grid indices); the "
      "first, u = %g, at (x, y, z) = (%d, %d, %d), (%g, %g, %g) m",
      count, u.size(), part ? (" of " + part->describe()).c_str() : "", lo[0], hi[0], lo[1], hi[1],
      lo[2], hi[2], double(u[first]), x, y, z, (x + 0.5) * h, (y + 0.5) * h, (z + 0.5) * h);
  return where;
}

}  // namespace

template <class T>
bool FiniteCheck<T>::due() const {
  bool due = seconds_since(checked_) >= std::max(10.0, 20 * cost_);
  ranks_.from_root(due);
  return due;
}

template <class T>
void FiniteCheck<T>::require(int n) {
  const Clock::time_point t0 = Clock::now();
  const bool finite = s_.wavefield_finite();
  const bool all_finite = ranks_.many ? ranks_.job.first_failed(!finite) < 0 : finite;
  cost_ = seconds_since(t0);
  times_.add("checks", cost_);
  checked_ = Clock::now();
  if (all_finite) {
    finite_at_ = n;
    return;
  }
  // Where (on a rank whose box holds them): the first value, and the box that holds them all.
  std::string why;
  if (!finite) {
    const Config& c = s_.config();
    const Partition* part = s_.partition();
    const Extent box = part ? part->box.local : c.shape;
    const std::array<int, 3> offset = part ? part->box.offset : std::array<int, 3>{0, 0, 0};
    const std::string where = non_finite_places(s_.field_values(), box, offset, c.spacing, part);
    const std::string& last = checkpoints_.last();
    why = "the wavefield is not finite at step " + std::to_string(n) + ": " + where +
          (finite_at_ >= 0 ? "; it was finite at step " + std::to_string(finite_at_)
                           : std::string()) +
          ". The scheme blew up or a value overflowed " + to_string(c.precision) +
          " (check the velocity model, time.dt, the sources' amplitudes and the state restarted "
          "from). "
          "Nothing from this step on was written" +
          (last.empty() ? std::string(".")
                        : "; the last valid checkpoint is " + last + " (step " +
                              std::to_string(checkpoints_.last_step()) + ").");
  }
  if (ranks_.many) ranks_.job.agree(why);  // the first failing rank's words, on every rank
  throw Error(why);
}

template class FiniteCheck<float>;
template class FiniteCheck<double>;

}  // namespace strata::wave
