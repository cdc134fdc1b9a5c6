// The generated Poisson problems on the GPU: the manufactured right-hand side, its exact
// solution and the random right-hand side are the host's bit for bit, and the error norms
// measured on the device match the host's.
#include <gtest/gtest.h>

#include <cstring>

#include "common/require_gpu.hpp"
#include "strata/manufactured.hpp"
#include "strata/poisson.hpp"

using namespace strata;

namespace {

template <class T>
std::size_t differing_points(const Field<T>& a, const Field<T>& b) {
  std::size_t d = 0;
  const Extent e = a.extent();
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x) d += std::memcmp(&a(x, y, z), &b(x, y, z), sizeof(T)) != 0;
  return d;
}

template <class T>
void check_precision() {
  const Extent e{131, 17, 9};
  for (const Boundary& bc : {Boundary::dirichlet(0.0), Boundary::dirichlet(-3.0), Boundary::neumann(), Boundary::periodic()}) {
    const double h = poisson_spacing(bc, e.nx);
    Field<T> f(e, 1), exact(e, 1), df(e, 1, Memory::device), dexact(e, 1, Memory::device), back(e, 1);
    poisson::manufactured(bc, h, f, &exact);
    poisson::manufactured(bc, h, df, &dexact);
    copy(df, back);
    EXPECT_EQ(differing_points(f, back), 0u) << bc.describe() << ": right-hand side";
    copy(dexact, back);
    EXPECT_EQ(differing_points(exact, back), 0u) << bc.describe() << ": exact solution";

    // u = exact + noise: the norms on the device match the host's.
    Field<T> u(e, 1), du(e, 1, Memory::device);
    poisson::random_rhs(u, 3);
    for (int z = 0; z < e.nz; ++z)
      for (int y = 0; y < e.ny; ++y)
        for (int x = 0; x < e.nx; ++x) u(x, y, z) = exact(x, y, z) + T(0.01) * u(x, y, z);
    copy(u, du);
    const auto hn = poisson::manufactured_error(bc, h, u), dn = poisson::manufactured_error(bc, h, du);
    EXPECT_GT(hn.max_abs, 0.0);
    EXPECT_NEAR(dn.max_abs, hn.max_abs, 1e-12 * (1 + hn.max_abs)) << bc.describe();
    EXPECT_NEAR(dn.rel_l2, hn.rel_l2, 1e-10 * hn.rel_l2) << bc.describe();
  }
  Field<T> r(e, 1), dr(e, 1, Memory::device), back(e, 1);
  poisson::random_rhs(r, 11);
  poisson::random_rhs(dr, 11);
  copy(dr, back);
  EXPECT_EQ(differing_points(r, back), 0u) << "random right-hand side";
}

}  // namespace

TEST(PoissonProblemsCuda, DeviceFieldsMatchTheHostBitForBit) {
  REQUIRE_GPU();
  check_precision<float>();
  check_precision<double>();
}
