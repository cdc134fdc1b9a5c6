// Field<T>: a 3D grid of nx*ny*nz interior points plus `ghost` layers on every side, on
// the host or on a CUDA device. The layout (Layout below) is shared by every backend:
// x fastest, rows padded so the first interior point of each row is 128-byte aligned (256 in a
// Field's own allocation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "strata/error.hpp"

namespace strata {

struct Extent {
  int nx = 0, ny = 0, nz = 0;
  std::size_t points() const {
    return std::size_t(nx) * std::size_t(ny) * std::size_t(nz);
  }
  bool operator==(const Extent&) const = default;
  // Printed sizes say their order: "64x48x32 (x,y,z)" (NumPy shapes are (nz, ny, nx)).
  std::string str() const;
  std::string xyz() const;  // "64x48x32", under a label that says (x,y,z) once
};

enum class Memory { host, device };

enum class Precision { f32, f64 };
template <class T>
inline constexpr Precision precision_of = sizeof(T) == 4 ? Precision::f32 : Precision::f64;
inline const char* to_string(Precision p) { return p == Precision::f32 ? "f32" : "f64"; }
inline std::size_t bytes_of(Precision p) { return p == Precision::f32 ? 4 : 8; }

// Where every point of a Field lives in its allocation. x in [-ghost, nx+ghost) etc.
//   index(x,y,z) = (z+ghost)*plane + (y+ghost)*pitch + xoff + x
// xoff >= ghost is the smallest multiple of 128 bytes that holds the left ghost layers,
// pitch is a multiple of 256 bytes (>= xoff + nx + ghost), so with a 128-byte aligned base
// every row's first interior point is 128-byte aligned. A Field's own allocation leaves
// lead_bytes() before index 0 (0 or 128) so that each row's first interior point is on a
// 256-byte boundary. Padding is zero-filled at allocation and never written by strata
// afterwards.
struct Layout {
  Extent n;
  int ghost = 0;
  std::size_t elem_bytes = 0;
  std::ptrdiff_t xoff = 0;   // elements before x = 0 in a row
  std::ptrdiff_t pitch = 0;  // elements per row
  std::ptrdiff_t rows = 0;   // rows per plane: ny + 2*ghost
  std::ptrdiff_t planes = 0; // nz + 2*ghost
  std::ptrdiff_t plane = 0;  // elements per plane: pitch * rows
  std::size_t size = 0;      // elements in the allocation: plane * planes

  static Layout make(Extent n, int ghost, std::size_t elem_bytes);
  // make()'s row rule alone, unchecked: the elements before x = 0 and in a row (a memory
  // estimate of a grid too large to allocate uses it without make()'s checks).
  static std::ptrdiff_t xoff_for(int ghost, std::size_t elem_bytes);
  static std::ptrdiff_t pitch_for(std::ptrdiff_t nx, int ghost, std::size_t elem_bytes);
  // A dense C-order [z][y][x] array of n.points() values: ghost 0, no padding (pitch nx).
  // Only for wrapping memory strata did not allocate (Field::wrap); Field never allocates it.
  static Layout dense(Extent n, std::size_t elem_bytes);
  std::ptrdiff_t index(std::ptrdiff_t x, std::ptrdiff_t y, std::ptrdiff_t z) const {
    return (z + ghost) * plane + (y + ghost) * pitch + xoff + x;
  }
  std::size_t bytes() const { return size * elem_bytes; }
  // Bytes a Field's allocation keeps before index 0 so that (with a 256-byte aligned
  // allocation) x = 0 of every row lies on a 256-byte boundary.
  std::size_t lead_bytes() const { return (256 - std::size_t(xoff) * elem_bytes % 256) % 256; }
  bool operator==(const Layout&) const = default;
};

inline constexpr int kDefaultGhost = 4;
inline constexpr int kMaxGhost = 16;

namespace detail {
// Aligned storage on the host or a device; frees itself through the owning backend,
// unless it wraps memory strata did not allocate (owned == false): then it only holds
// keep_alive, which keeps that memory's owner alive as long as the Field lives.
struct Storage {
  void* ptr = nullptr;     // index 0 of the layout
  std::size_t lead = 0;    // bytes of the allocation before ptr (0 for wrapped memory)
  Memory memory = Memory::host;
  bool owned = true;
  std::shared_ptr<void> keep_alive;
  ~Storage();
};
// Zero-filled; `lead` more bytes are allocated (and zeroed) before the returned ptr.
std::unique_ptr<Storage> allocate(std::size_t bytes, Memory memory, std::size_t lead = 0);
}  // namespace detail

template <class T>
class Field {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "strata::Field holds float or double");

public:
  Field() = default;
  // Zero-filled interior, ghosts and padding. Throws Error for an extent < 1 on any axis,
  // a ghost width outside 0..16, or (device) a grid that does not fit in free memory.
  explicit Field(Extent n, int ghost = kDefaultGhost, Memory memory = Memory::host);

  // A Field over memory strata did not allocate (a NumPy, CuPy or PyTorch buffer): `data`
  // is index 0 of `layout`, which must be either Layout::make(n, ghost, sizeof(T)) (a
  // padded strata array, data then 128-byte aligned) or Layout::dense(n, sizeof(T)) (an
  // interior-only C-order array, data aligned to sizeof(T)). Nothing is copied or
  // zero-filled; the memory is never freed by strata. keep_alive (may be empty) is held
  // until the Field is destroyed, so it can own the buffer. Throws Error for a null
  // pointer, another layout, a misaligned pointer or an element size other than T's, and
  // with Memory::device for memory that is not the current GPU's.
  static Field wrap(T* data, const Layout& layout, Memory memory,
                    std::shared_ptr<void> keep_alive = {});
  // Whether this Field allocated its memory (false for Field::wrap).
  bool owns_memory() const { return storage_ && storage_->owned; }

  // Fields are handles to one buffer only through explicit moves; copies are explicit
  // (strata::copy) because they may cross the host/device boundary.
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;
  Field(Field&&) noexcept = default;
  Field& operator=(Field&&) noexcept = default;

  const Layout& layout() const { return layout_; }
  Extent extent() const { return layout_.n; }
  int ghost() const { return layout_.ghost; }
  Memory memory() const { return memory_; }
  bool empty() const { return storage_ == nullptr; }

  // Start of the allocation (index 0), and of the interior point (0,0,0).
  T* data() { return static_cast<T*>(storage_ ? storage_->ptr : nullptr); }
  const T* data() const { return static_cast<const T*>(storage_ ? storage_->ptr : nullptr); }
  T* origin() { return data() + layout_.index(0, 0, 0); }
  const T* origin() const { return data() + layout_.index(0, 0, 0); }

  // Host fields only: element access, ghosts included (x in [-ghost, nx+ghost) ...).
  T& operator()(int x, int y, int z) { return data()[layout_.index(x, y, z)]; }
  const T& operator()(int x, int y, int z) const { return data()[layout_.index(x, y, z)]; }

  // Interior <-> dense C-order array [z][y][x] of nx*ny*nz values (host or device field).
  void load_interior(std::span<const T> dense);
  void store_interior(std::span<T> dense) const;

private:
  Layout layout_{};
  Memory memory_ = Memory::host;
  std::unique_ptr<detail::Storage> storage_;
};

// Copies src to dst, which must have the same extent; any host/device combination.
// Same ghost width: the whole allocation (ghosts included); otherwise the interior only.
template <class T>
void copy(const Field<T>& src, Field<T>& dst);

extern template class Field<float>;
extern template class Field<double>;

}  // namespace strata
