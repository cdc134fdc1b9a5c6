// .npy files to and from device fields: the device path streams through a bounded host
// buffer, whole planes at a time or, for a plane larger than the buffer, runs of its rows.
// Round trips on odd shapes, precision conversion on read, and a plane that needs two runs.
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>

#include "common/require_gpu.hpp"
#include "common/wave_cases.hpp"
#include "strata/manufactured.hpp"
#include "strata/npy.hpp"

using namespace strata;

namespace {

template <class A, class B>
std::size_t differing(const Field<A>& a, const Field<B>& b) {
  std::size_t d = 0;
  const Extent e = a.extent();
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x) d += double(a(x, y, z)) != double(b(x, y, z));
  return d;
}

template <class T>
void round_trip(const Extent& e, const test::TempDir& dir) {
  Field<T> h(e, 2);
  poisson::random_rhs(h, 5);
  Field<T> d(e, 3, Memory::device);
  copy(h, d);
  const std::string path = dir / "field.npy";
  npy_write_field(path, d);  // from the device
  const Field<T> back = npy_read_field<T>(path, 1);
  EXPECT_EQ(differing(h, back), 0u) << e.str();
  const Field<T> dev = npy_read_field<T>(path, 4, Memory::device);  // to the device
  Field<T> host(e, 4);
  copy(dev, host);
  EXPECT_EQ(differing(h, host), 0u) << e.str();
  EXPECT_EQ(dev.ghost(), 4);
  // Another precision on the way in: float data widened, double data rounded.
  using U = std::conditional_t<sizeof(T) == 4, double, float>;
  const Field<U> other = npy_read_field<U>(path, 1, Memory::device);
  Field<U> other_host(e, 1);
  copy(other, other_host);
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x) ASSERT_EQ(other_host(x, y, z), U(h(x, y, z))) << e.str();
}

}  // namespace

TEST(NpyCuda, DeviceFieldsRoundTrip) {
  REQUIRE_GPU();
  test::TempDir dir("npy-cuda");
  for (const Extent& e : {Extent{1, 1, 1}, Extent{33, 7, 5}, Extent{130, 65, 3}}) {
    round_trip<float>(e, dir);
    round_trip<double>(e, dir);
  }
  // 4096 x 4097 float32 is a 67 MB plane: two runs of rows through the 64 MB buffer.
  round_trip<float>({4096, 4097, 1}, dir);
}
