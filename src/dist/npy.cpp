// Files of a distributed grid: each rank reads its box of a .npy; one global file (a .npy, a
// .vti) is written by every rank into the one temporary rank 0 made, which rank 0 renames
// once every rank has written.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "dist/exchange.hpp"
#include "io/npy_box.hpp"
#include "strata/atomic_file.hpp"
#include "strata/dist.hpp"

namespace strata::dist {

template <class T>
void read_npy(const std::string& path, DistField<T>& f) {
  const Subdomain& b = f.box();
  std::vector<T> dense(b.local.points());
  npy_read_box(path, b.offset, b.local, dense.data());
  f.local().load_interior(dense);
}

namespace detail {

void write_global(const std::string& path, const std::string& head, const std::string& tail, const Subdomain& b,
                  const void* dense, std::size_t elem) {
  const Job& job = Job::get();
  const Extent g = b.global;
  const std::size_t total = head.size() + g.points() * elem + tail.size();

  // Rank 0: the temporary, at its full size with head and tail, its name sent to every rank.
  std::unique_ptr<io::AtomicFile> out;
  std::string temp, why;
  if (job.root()) {
    try {
      out = std::make_unique<io::AtomicFile>(path);
      if (out->target().kind == io::OutputTarget::Kind::stream)
        throw Error("cannot write '" + path + "' from " + std::to_string(job.size()) +
                    " ranks: it is a pipe or device, which the ranks cannot fill in parallel; write a file");
      out->write(head.data(), head.size());
      if (std::fflush(out->get()) != 0 || ::ftruncate(::fileno(out->get()), off_t(total - tail.size())) != 0 ||
          std::fseek(out->get(), long(total - tail.size()), SEEK_SET) != 0)
        throw Error("cannot size '" + out->temp_path() + "': " + std::strerror(errno));
      out->write(tail.data(), tail.size());
      if (std::fflush(out->get()) != 0) throw Error("cannot write '" + out->temp_path() + "': " + std::strerror(errno));
      temp = out->temp_path();
    } catch (const Error& e) {
      why = e.what();
    }
  }
  std::size_t len = temp.size();
  job.broadcast(&len, sizeof len, 0);
  temp.resize(len);
  job.broadcast(temp.data(), len, 0);
  job.agree(why);

  // Every rank: its rows, at their places in the file.
  try {
    const int fd = ::open(temp.c_str(), O_WRONLY);
    if (fd < 0)
      throw Error("rank " + std::to_string(job.rank()) + " cannot open '" + temp + "' (" + std::strerror(errno) +
                  "): the output directory must be on a filesystem every rank sees");
    const std::size_t row = std::size_t(b.local.nx) * elem;
    bool ok = true;
    for (int z = 0; z < b.local.nz && ok; ++z)
      for (int y = 0; y < b.local.ny && ok; ++y) {
        const std::size_t at = head.size() + ((std::size_t(b.offset[2] + z) * std::size_t(g.ny) +
                                               std::size_t(b.offset[1] + y)) * std::size_t(g.nx) +
                                              std::size_t(b.offset[0])) * elem;
        const char* src = static_cast<const char*>(dense) + (std::size_t(z) * b.local.ny + y) * row;
        for (std::size_t done = 0; done < row && ok;) {
          const ssize_t n = ::pwrite(fd, src + done, row - done, off_t(at + done));
          if (n <= 0) ok = errno == EINTR && n < 0;
          else done += std::size_t(n);
        }
      }
    const int err = errno;
    if (ok && ::fsync(fd) != 0) ok = false;
    ::close(fd);
    if (!ok) throw Error("rank " + std::to_string(job.rank()) + " could not write its part of '" + path + "': " +
                         std::strerror(err));
  } catch (const Error& e) {
    why = e.what();
  }
  // All ranks written (or the temporary is dropped by rank 0's AtomicFile): then the rename.
  job.agree(why);
  if (job.root()) out->commit();
  job.barrier();
}

}  // namespace detail

template <class T>
void write_npy(const std::string& path, const DistField<T>& f) {
  const Subdomain& b = f.box();
  const Extent g = b.global;
  const std::size_t shape[3] = {std::size_t(g.nz), std::size_t(g.ny), std::size_t(g.nx)};
  std::vector<T> dense(b.local.points());
  f.local().store_interior(dense);
  detail::write_global(path, npy_preamble(precision_of<T>, shape, path), "", b, dense.data(), sizeof(T));
}

template void read_npy(const std::string&, DistField<float>&);
template void read_npy(const std::string&, DistField<double>&);
template void write_npy(const std::string&, const DistField<float>&);
template void write_npy(const std::string&, const DistField<double>&);

}  // namespace strata::dist
