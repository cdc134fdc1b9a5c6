// .npy files of a distributed grid: each rank reads its box; writing, every rank's box goes
// into one file through global_file.hpp.
#include <algorithm>
#include <vector>

#include "base/runtime.hpp"
#include "io/npy_box.hpp"
#include "parallel/global_file.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

namespace {
// Rows of a box a host buffer of 64 MB holds (at least one; at most a plane's).
int chunk_rows(Extent box, std::size_t elem) {
  constexpr std::size_t kStageBytes = std::size_t(64) << 20;
  return int(std::min<std::size_t>(
      std::size_t(box.ny), std::max<std::size_t>(1, kStageBytes / (std::size_t(box.nx) * elem))));
}
}  // namespace

// The box streams from the file through a host buffer of whole planes (or rows of one) into
// the local field, as write_npy's rows go the other way.
template <class T>
void read_npy(const std::string& path, DistField<T>& f) {
  const Subdomain& b = f.box();
  Field<T>& u = f.local();
  const Layout& L = u.layout();
  const std::size_t row = std::size_t(b.local.nx) * sizeof(T);
  npy_read_box_rows<T>(path, b.offset, b.local, chunk_rows(b.local, sizeof(T)),
                       [&](int z, int y, int rows, const T* values) {
                         runtime::copy_2d(u.data() + L.index(0, y, z), u.memory(),
                                          std::size_t(L.pitch) * sizeof(T), values, Memory::host,
                                          row, row, std::size_t(rows));
                       });
}

// The box streams through a host buffer of whole planes (or rows of one), as one process's
// npy_write_field does: no host copy of the box (a 1 GB one cost its allocation and a copy).
template <class T>
void write_npy(const std::string& path, const DistField<T>& f) {
  const Subdomain& b = f.box();
  const Extent g = b.global;
  const std::size_t shape[3] = {std::size_t(g.nz), std::size_t(g.ny), std::size_t(g.nx)};
  const Field<T>& u = f.local();
  const Layout& L = u.layout();
  const std::size_t row = std::size_t(b.local.nx) * sizeof(T);
  const int chunk = chunk_rows(b.local, sizeof(T));
  std::vector<T> stage(std::size_t(chunk) * std::size_t(b.local.nx));
  global_file::write(path, npy_preamble(precision_of<T>, shape, path), "", b, sizeof(T), chunk,
                     [&](int z, int y, int rows) -> const void* {
                       runtime::copy_2d(stage.data(), Memory::host, row,
                                        u.data() + L.index(0, y, z), u.memory(),
                                        std::size_t(L.pitch) * sizeof(T), row, std::size_t(rows));
                       return stage.data();
                     });
}

template void read_npy(const std::string&, DistField<float>&);
template void read_npy(const std::string&, DistField<double>&);
template void write_npy(const std::string&, const DistField<float>&);
template void write_npy(const std::string&, const DistField<double>&);

}  // namespace strata::dist
