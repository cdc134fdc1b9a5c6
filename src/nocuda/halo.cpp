// The CUDA side of the halo seam (backend/halo.hpp) in a build without CUDA: refusals.
#include "backend/halo.hpp"
#include "nocuda/refuse.hpp"

namespace strata::cuda {

using nocuda::refuse;

template <class T>
void pack_box(const Field<T>&, const Region&, T*, void*) { refuse(); }
template <class T>
void unpack_box(Field<T>&, const Region&, const T*, void*) { refuse(); }
template <class T>
void fill_ghost_sides(Field<T>&, const Boundary&, int, int, bool, bool, void*) { refuse(); }

template void pack_box(const Field<float>&, const Region&, float*, void*);
template void pack_box(const Field<double>&, const Region&, double*, void*);
template void unpack_box(Field<float>&, const Region&, const float*, void*);
template void unpack_box(Field<double>&, const Region&, const double*, void*);
template void fill_ghost_sides(Field<float>&, const Boundary&, int, int, bool, bool, void*);
template void fill_ghost_sides(Field<double>&, const Boundary&, int, int, bool, bool, void*);

}  // namespace strata::cuda
