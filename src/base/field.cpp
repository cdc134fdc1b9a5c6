// Field storage and layout, and copies between host and device fields. Device memory
// goes through the CUDA backend's runtime (src/cuda/runtime.cu); this file has no CUDA.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "base/runtime.hpp"
#include "strata/field.hpp"

namespace strata {

std::string Extent::xyz() const {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
}
std::string Extent::str() const { return xyz() + " (x,y,z)"; }

namespace {
std::ptrdiff_t round_up(std::ptrdiff_t v, std::ptrdiff_t m) { return (v + m - 1) / m * m; }

// The box n from src's (0,0,0) in layout a to dst's in layout b, in one runtime call.
template <class T>
void copy_box(T* dst, Memory dm, const Layout& b, const T* src, Memory sm, const Layout& a, Extent n) {
  if (a.plane == a.pitch * a.rows && b.plane == b.pitch * b.rows) {
    runtime::copy_3d(dst, dm, b.pitch * sizeof(T), b.rows, src, sm, a.pitch * sizeof(T), a.rows,
                     n.nx * sizeof(T), n.ny, n.nz);
    return;
  }
  for (int z = 0; z < n.nz; ++z)  // a wrapped layout whose planes are not whole rows apart
    runtime::copy_2d(dst + z * b.plane, dm, b.pitch * sizeof(T), src + z * a.plane, sm,
                     a.pitch * sizeof(T), n.nx * sizeof(T), n.ny);
}
}  // namespace

std::ptrdiff_t Layout::xoff_for(int ghost, std::size_t elem_bytes) {
  return round_up(ghost, 128 / std::ptrdiff_t(elem_bytes));
}

std::ptrdiff_t Layout::pitch_for(std::ptrdiff_t nx, int ghost, std::size_t elem_bytes) {
  return round_up(xoff_for(ghost, elem_bytes) + nx + ghost, 256 / std::ptrdiff_t(elem_bytes));
}

Layout Layout::make(Extent n, int ghost, std::size_t elem_bytes) {
  require(n.nx >= 1 && n.ny >= 1 && n.nz >= 1,
          "grid extent " + n.str() + " is invalid: each of nx, ny, nz must be >= 1");
  require(ghost >= 0 && ghost <= kMaxGhost, "ghost width " + std::to_string(ghost) +
                                                " is invalid: allowed 0.." +
                                                std::to_string(kMaxGhost));
  require(elem_bytes == 4 || elem_bytes == 8, "element size must be 4 or 8 bytes");
  Layout L;
  L.n = n;
  L.ghost = ghost;
  L.elem_bytes = elem_bytes;
  // Every row's first interior point on a 256-byte boundary of a Field's allocation: the pitch
  // a multiple of 256 bytes, and the allocation's first lead_bytes() left before index 0 (the
  // left padding stays one 128-byte unit, so the rows are no longer than before). An H200
  // copies rows that start on 256 bytes at 0.93-0.95 of cudaMemcpy's rate, rows that start
  // 128 bytes past one at 0.85-0.90 (tools/copy-probe.cu, docs/performance.md).
  L.xoff = xoff_for(ghost, elem_bytes);
  L.pitch = pitch_for(n.nx, ghost, elem_bytes);
  L.rows = n.ny + 2 * std::ptrdiff_t(ghost);
  L.planes = n.nz + 2 * std::ptrdiff_t(ghost);
  L.plane = L.pitch * L.rows;
  const double total = double(L.plane) * double(L.planes) * double(elem_bytes);
  require(total < double(std::numeric_limits<std::ptrdiff_t>::max()) / 4,
          "grid " + n.str() + " is too large to address");
  L.size = std::size_t(L.plane) * std::size_t(L.planes);
  return L;
}

Layout Layout::dense(Extent n, std::size_t elem_bytes) {
  Layout L = make(n, 0, elem_bytes);  // the same checks on n and elem_bytes
  L.xoff = 0;
  L.pitch = n.nx;
  L.plane = L.pitch * L.rows;
  L.size = std::size_t(L.plane) * std::size_t(L.planes);
  return L;
}

namespace detail {

Storage::~Storage() {
  if (!ptr || !owned) return;
  void* base = static_cast<char*>(ptr) - lead;
  if (memory == Memory::host)
    std::free(base);
  else
    runtime::device_free(base);
}

std::unique_ptr<Storage> allocate(std::size_t bytes, Memory memory, std::size_t lead) {
  auto s = std::make_unique<Storage>();
  s->memory = memory;
  void* base = nullptr;
  if (memory == Memory::host) {
    const std::size_t align = 4096;
    const std::size_t rounded = (lead + bytes + align - 1) / align * align;
    base = std::aligned_alloc(align, rounded);
    if (!base)
      throw Error("out of host memory: could not allocate " + std::to_string(bytes) +
                  " bytes");
    std::memset(base, 0, rounded);
  } else {
    base = runtime::device_alloc_zeroed(lead + bytes);
  }
  s->ptr = static_cast<char*>(base) + lead;
  s->lead = lead;
  return s;
}

}  // namespace detail

template <class T>
Field<T>::Field(Extent n, int ghost, Memory memory)
    : layout_(Layout::make(n, ghost, sizeof(T))),
      memory_(memory),
      storage_(detail::allocate(layout_.bytes(), memory, layout_.lead_bytes())) {}

template <class T>
Field<T> Field<T>::wrap(T* data, const Layout& layout, Memory memory,
                        std::shared_ptr<void> keep_alive) {
  require(data != nullptr, "Field::wrap: the data pointer is null");
  require(layout.elem_bytes == sizeof(T),
          "Field::wrap: the layout is for " + std::to_string(layout.elem_bytes) +
              "-byte elements, the field holds " + std::to_string(sizeof(T)) + "-byte ones");
  const Layout padded = Layout::make(layout.n, layout.ghost, sizeof(T));
  const bool is_padded = layout == padded;
  const bool is_dense = layout.ghost == 0 && layout == Layout::dense(layout.n, sizeof(T));
  require(is_padded || is_dense,
          "Field::wrap: the layout of the " + layout.n.str() + " array (ghost " +
              std::to_string(layout.ghost) + ", pitch " + std::to_string(layout.pitch) +
              ") is neither strata's padded layout (Layout::make: pitch " +
              std::to_string(padded.pitch) + ") nor a dense array with ghost 0 (Layout::dense)");
  // A dense array is only element-aligned, also when its shape happens to give the padded
  // layout too (ghost 0 with rows a multiple of 256 bytes).
  const std::size_t align = is_dense ? sizeof(T) : 128;
  require(reinterpret_cast<std::uintptr_t>(data) % align == 0,
          "Field::wrap: the data pointer is not " + std::to_string(align) + "-byte aligned" +
              (is_padded ? " (a padded layout's rows start on 128-byte boundaries)" : ""));
  // Device memory must be of the current device (a CuPy or PyTorch array on another GPU, or
  // host memory called device memory, is refused here rather than faulting in a kernel).
  if (memory == Memory::device) runtime::require_device_pointer(data, "Field::wrap");
  Field f;
  f.layout_ = layout;
  f.memory_ = memory;
  f.storage_ = std::make_unique<detail::Storage>();
  f.storage_->ptr = data;
  f.storage_->memory = memory;
  f.storage_->owned = false;
  f.storage_->keep_alive = std::move(keep_alive);
  return f;
}

template <class T>
void Field<T>::load_interior(std::span<const T> dense) {
  const Extent n = extent();
  require(dense.size() == n.points(), "load_interior: " + std::to_string(dense.size()) +
                                          " values given, the field's interior " +
                                          n.str() + " holds " + std::to_string(n.points()));
  copy_box(data() + layout_.index(0, 0, 0), memory_, layout_, dense.data(), Memory::host,
           Layout::dense(n, sizeof(T)), n);
}

template <class T>
void Field<T>::store_interior(std::span<T> dense) const {
  const Extent n = extent();
  require(dense.size() == n.points(), "store_interior: " + std::to_string(dense.size()) +
                                          " values given, the field's interior " +
                                          n.str() + " holds " + std::to_string(n.points()));
  copy_box(dense.data(), Memory::host, Layout::dense(n, sizeof(T)), data() + layout_.index(0, 0, 0),
           memory_, layout_, n);
}

template <class T>
void copy(const Field<T>& src, Field<T>& dst) {
  require(!src.empty() && !dst.empty(), "copy: empty field");
  require(src.extent() == dst.extent(), "copy: extents differ (" + src.extent().str() +
                                            " to " + dst.extent().str() + ")");
  if (src.layout() == dst.layout()) {
    runtime::copy_bytes(dst.data(), dst.memory(), src.data(), src.memory(),
                        src.layout().bytes());
    return;
  }
  copy_box(dst.data() + dst.layout().index(0, 0, 0), dst.memory(), dst.layout(),
           src.data() + src.layout().index(0, 0, 0), src.memory(), src.layout(), src.extent());
}

template class Field<float>;
template class Field<double>;
template void copy(const Field<float>&, Field<float>&);
template void copy(const Field<double>&, Field<double>&);

}  // namespace strata
