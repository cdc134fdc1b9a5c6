// Uses the installed strata: the 7-point Laplacian of x^2 + y^2 + z^2 is 6 everywhere.
#include <cstdio>

#include <strata/strata.hpp>

int main() {
  const strata::Extent n{8, 6, 5};
  strata::Field<double> u(n, 1), lap(n, 1);
  for (int z = -1; z <= n.nz; ++z)
    for (int y = -1; y <= n.ny; ++y)
      for (int x = -1; x <= n.nx; ++x) u(x, y, z) = double(x * x + y * y + z * z);
  strata::apply_interior(strata::Stencil::laplacian7(), u, lap);
  for (int z = 0; z < n.nz; ++z)
    for (int y = 0; y < n.ny; ++y)
      for (int x = 0; x < n.nx; ++x)
        if (lap(x, y, z) != 6.0) {
          std::printf("wrong value %g at (%d,%d,%d)\n", lap(x, y, z), x, y, z);
          return 1;
        }
  std::printf("consumer ok: strata %s, CUDA backend %s\n", strata::build_info().version.c_str(),
              strata::build_info().cuda ? "yes" : "no");
  return 0;
}
