// Field::wrap: Fields over memory strata did not allocate (what the Python package hands
// NumPy/CuPy buffers to). The wrapped memory is used in place, never freed, and its owner
// is kept alive by the Field.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "strata/apply.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"
#include "strata/reduce.hpp"

using namespace strata;

namespace {
// 128-byte aligned host buffer, freed by its shared_ptr's deleter.
template <class T>
std::shared_ptr<T> aligned_buffer(std::size_t n) {
  const std::size_t bytes = (n * sizeof(T) + 127) / 128 * 128;
  return std::shared_ptr<T>(static_cast<T*>(std::aligned_alloc(128, bytes)), std::free);
}
}  // namespace

TEST(FieldWrap, DenseLayoutHasNoGhostsAndNoPadding) {
  const Layout L = Layout::dense({5, 3, 2}, 8);
  EXPECT_EQ(L.ghost, 0);
  EXPECT_EQ(L.xoff, 0);
  EXPECT_EQ(L.pitch, 5);
  EXPECT_EQ(L.plane, 15);
  EXPECT_EQ(L.size, 30u);
  EXPECT_EQ(L.index(4, 2, 1), 29);
  EXPECT_THROW(Layout::dense({0, 1, 1}, 4), Error);
  EXPECT_THROW(Layout::dense({1, 1, 1}, 2), Error);
}

TEST(FieldWrap, PaddedArrayIsUsedInPlace) {
  const Layout L = Layout::make({7, 3, 2}, 2, sizeof(double));
  auto buf = aligned_buffer<double>(L.size);
  std::fill(buf.get(), buf.get() + L.size, 0.0);
  Field<double> f = Field<double>::wrap(buf.get(), L, Memory::host);
  EXPECT_FALSE(f.owns_memory());
  EXPECT_EQ(f.data(), buf.get());
  EXPECT_EQ(f.layout(), L);
  f(1, 2, 1) = 5.0;
  EXPECT_EQ(buf.get()[L.index(1, 2, 1)], 5.0);
  buf.get()[L.index(0, 0, 0)] = -3.0;
  EXPECT_EQ(f(0, 0, 0), -3.0);
  EXPECT_EQ(sum(f), 2.0);

  // A stencil pass from a wrapped field into an owned one matches an owned input.
  Field<double> owned(L.n, 2), out1(L.n, 2), out2(L.n, 2);
  copy(f, owned);
  apply(Stencil::laplacian7(), f, out1, Boundary::neumann());
  apply(Stencil::laplacian7(), owned, out2, Boundary::neumann());
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 7; ++x) EXPECT_EQ(out1(x, y, z), out2(x, y, z));
  EXPECT_EQ(Field<double>(L.n, 2).owns_memory(), true);
}

TEST(FieldWrap, DenseArrayReducesAndCopies) {
  std::vector<float> v(4 * 3 * 2);
  std::iota(v.begin(), v.end(), 1.f);
  Field<float> f = Field<float>::wrap(v.data(), Layout::dense({4, 3, 2}, 4), Memory::host);
  EXPECT_EQ(f(3, 2, 1), 24.f);
  EXPECT_EQ(sum(f), 300.0);
  EXPECT_EQ(max_abs(f), 24.f);
  Field<float> padded({4, 3, 2}, 1);
  copy(f, padded);
  EXPECT_EQ(padded(2, 1, 1), v[(1 * 3 + 1) * 4 + 2]);
  padded(0, 0, 0) = 100.f;
  copy(padded, f);
  EXPECT_EQ(v[0], 100.f);
}

TEST(FieldWrap, DenseArrayWhoseShapeIsAlsoPaddedNeedsOnlyElementAlignment) {
  // nx = 32 with ghost 0: Layout::dense equals Layout::make, but a NumPy array of that
  // shape is only 8-byte aligned; it must be accepted as the dense array it is.
  const Extent n{32, 2, 2};
  ASSERT_EQ(Layout::dense(n, sizeof(double)), Layout::make(n, 0, sizeof(double)));
  std::vector<double> v(n.points() + 1, 1.0);
  double* p = v.data() + (reinterpret_cast<std::uintptr_t>(v.data()) % 128 == 0 ? 1 : 0);
  ASSERT_NE(reinterpret_cast<std::uintptr_t>(p) % 128, 0u);
  Field<double> f = Field<double>::wrap(p, Layout::dense(n, sizeof(double)), Memory::host);
  EXPECT_EQ(sum(f), double(n.points()));
}

TEST(FieldWrap, KeepsItsOwnerAliveAndNeverFreesTheMemory) {
  const Layout L = Layout::dense({2, 2, 2}, sizeof(double));
  auto owner = std::make_shared<std::vector<double>>(L.size, 1.0);
  std::weak_ptr<std::vector<double>> watch = owner;
  {
    Field<double> f = Field<double>::wrap(owner->data(), L, Memory::host, owner);
    owner.reset();
    EXPECT_FALSE(watch.expired());
    EXPECT_EQ(sum(f), 8.0);
    Field<double> moved = std::move(f);
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());
}

TEST(FieldWrap, RejectsNullPointersLayoutsThatDoNotFitAndMisalignment) {
  const Layout padded = Layout::make({8, 2, 2}, 1, sizeof(float));
  auto buf = aligned_buffer<float>(padded.size + 32);
  EXPECT_THROW(Field<float>::wrap(nullptr, padded, Memory::host), Error);
  // Element size of the layout must be T's.
  EXPECT_THROW(Field<float>::wrap(buf.get(), Layout::make({8, 2, 2}, 1, 8), Memory::host),
               Error);
  // A hand-made layout that is neither padded nor dense.
  Layout odd = padded;
  odd.pitch += 1;
  odd.plane = odd.pitch * odd.rows;
  odd.size = std::size_t(odd.plane * odd.planes);
  EXPECT_THROW(Field<float>::wrap(buf.get(), odd, Memory::host), Error);
  Layout ghosted_dense = Layout::dense({8, 2, 2}, 4);
  ghosted_dense.ghost = 1;
  EXPECT_THROW(Field<float>::wrap(buf.get(), ghosted_dense, Memory::host), Error);
  // Padded layouts need 128-byte rows; dense ones only element alignment.
  EXPECT_THROW(Field<float>::wrap(buf.get() + 1, padded, Memory::host), Error);
  EXPECT_NO_THROW(Field<float>::wrap(buf.get() + 1, Layout::dense({8, 2, 2}, 4), Memory::host));
  try {
    Field<float>::wrap(nullptr, padded, Memory::host);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("null"), std::string::npos);
  }
}

// Host memory passed as device memory (what a wrong device string or an array of another
// GPU amounts to) is refused when wrapped, never handed to a kernel: in a build without
// CUDA, with no GPU, and with one (where the pointer is host memory, not the GPU's).
TEST(FieldWrap, HostMemoryCalledDeviceMemoryIsRefused) {
  std::vector<double> host(4 * 3 * 2);
  try {
    Field<double>::wrap(host.data(), Layout::dense({4, 3, 2}, 8), Memory::device);
    ADD_FAILURE() << "wrapped host memory as device memory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Field::wrap"), std::string::npos) << e.what();
  }
}
