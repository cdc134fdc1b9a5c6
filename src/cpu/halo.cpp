// Face packing for the halo exchange on the host: plain loops over a box, x fastest.
#include <cstddef>

#include "backend/halo.hpp"
#include "cpu/cpu.hpp"

namespace strata::cpu {

namespace {

// Calls fn(field element, buffer element) for every point of box b, in buffer order.
template <class F, class Fn>
void for_box(F& f, const Region& b, Fn fn) {
  const std::size_t row = std::size_t(b.nx), plane = row * std::size_t(b.ny);
#pragma omp parallel for if (threaded(b.points()))
  for (int z = 0; z < b.nz; ++z)
    for (int y = 0; y < b.ny; ++y)
      for (int x = 0; x < b.nx; ++x)
        fn(f(b.x0 + x, b.y0 + y, b.z0 + z), std::size_t(z) * plane + std::size_t(y) * row + std::size_t(x));
}

}  // namespace

template <class T>
void pack_box(Tag, const Field<T>& f, const Region& b, T* buf, void*) {
  for_box(f, b, [buf](const T& v, std::size_t i) { buf[i] = v; });
}

template <class T>
void unpack_box(Tag, Field<T>& f, const Region& b, const T* buf, void*) {
  for_box(f, b, [buf](T& v, std::size_t i) { v = buf[i]; });
}

template void pack_box(Tag, const Field<float>&, const Region&, float*, void*);
template void pack_box(Tag, const Field<double>&, const Region&, double*, void*);
template void unpack_box(Tag, Field<float>&, const Region&, const float*, void*);
template void unpack_box(Tag, Field<double>&, const Region&, const double*, void*);

}  // namespace strata::cpu
