// How a wave run meets the job's processes, decided once here: one process, or the ranks of
// a distributed run (one rank too where a --grid asks for it: the distributed path, measured
// against one process). Rank 0 holds the output directory and decides for every rank; the
// run's pieces take their collective steps through Ranks (on_root, from_root, gather).
// A rank gets its GPU from drivers/job.hpp's bind_gpu, the one place for every run. Uses
// strata/dist.hpp (the job) only.
#pragma once

#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "strata/dist.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

struct Ranks {
  explicit Ranks(const RunOptions& o)
      : many(!o.alone && (job.size() > 1 || !o.grid.empty())), root(!many || job.root()) {}
  const dist::Job& job = dist::Job::get();
  bool many = false, root = true;
  int size() const { return many ? job.size() : 1; }
  int rank() const { return many ? job.rank() : 0; }
  // f on rank 0 alone; its failure is every rank's (AgreedError). In one process, just f.
  template <class F>
  void on_root(F&& f) const {
    if (!many) return f();
    std::string why;
    if (root) try {
        f();
      } catch (const std::exception& e) {  // any failure: the others wait in agree for its word
        why = e.what();
      }
    job.agree(why);
  }
  // Rank 0's values of v (trivially copyable) on every rank.
  template <class V>
  void from_root(V& v) const {
    if (many) job.broadcast(&v, sizeof v, 0);
  }
  // Every rank's piece at rank 0 (empty vector elsewhere); one process: {mine}.
  std::vector<std::vector<double>> gather(const std::vector<double>& mine) const {
    if (!many) return {mine};
    const std::string blob(reinterpret_cast<const char*>(mine.data()),
                           mine.size() * sizeof(double));
    std::vector<std::vector<double>> out;
    for (const std::string& b : job.gather_text(blob, 0)) {
      std::vector<double> v(b.size() / sizeof(double));
      std::memcpy(v.data(), b.data(), b.size());
      out.push_back(std::move(v));
    }
    return out;
  }
};

}  // namespace strata::wave
