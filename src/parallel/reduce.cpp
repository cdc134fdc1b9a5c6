// Reductions over the whole distributed grid: each rank reduces its box, the partial results
// combined in rank order (Job::sum, Job::max), so every rank gets the same bits.
#include <cmath>

#include "strata/dist.hpp"
#include "strata/reduce.hpp"

namespace strata::dist {

template <class T>
double sum(const DistField<T>& f, Stream stream) {
  return Job::get().sum(strata::sum(f.local(), stream));
}
template <class T>
double dot(const DistField<T>& a, const DistField<T>& b, Stream stream) {
  return Job::get().sum(strata::dot(a.local(), b.local(), stream));
}
template <class T>
double norm2(const DistField<T>& f, Stream stream) {
  const double local = strata::norm2(f.local(), stream);
  return std::sqrt(Job::get().sum(local * local));
}
template <class T>
double max_abs(const DistField<T>& f, Stream stream) {
  return Job::get().max(double(strata::max_abs(f.local(), stream)));
}

#define STRATA_INSTANTIATE(T)                                            \
  template double sum(const DistField<T>&, Stream);                      \
  template double dot(const DistField<T>&, const DistField<T>&, Stream); \
  template double norm2(const DistField<T>&, Stream);                    \
  template double max_abs(const DistField<T>&, Stream);
STRATA_INSTANTIATE(float)
STRATA_INSTANTIATE(double)
#undef STRATA_INSTANTIATE

}  // namespace strata::dist
