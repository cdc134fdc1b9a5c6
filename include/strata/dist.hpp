// Many processes, one grid: the MPI job (one process per GPU), the process grid that splits
// a global grid into boxes, and distributed fields whose ghost layers hold their
// neighbours' values. Ghosts travel between GPUs through CUDA IPC on one host or NCCL
// across hosts, and through MPI between CPU processes. Without an MPI launcher (or in a build without MPI) the job is one rank and
// everything here reduces to the single-process API. No MPI or NCCL header is included.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "strata/boundary.hpp"
#include "strata/error.hpp"
#include "strata/field.hpp"
#include "strata/stencil.hpp"
#include "strata/steps.hpp"
#include "strata/stream.hpp"

namespace strata::dist {

// Thrown by Job::begin on the ranks that did not fail when another rank's validation did:
// that rank has already said why, so this one exits quietly with the same status.
struct PeerFailed : Error {
  PeerFailed() : Error("another rank failed") {}
};

// A failure every rank knows of, thrown on every rank with the failing rank's message
// (Job::agree): main prints it once, on rank 0, and every rank exits 1 without an abort.
struct AgreedError : Error {
  using Error::Error;
};

// This process's place in the job. Started once, first thing in main: under mpirun (or any
// launcher that sets the PMI/PMIx or Open MPI environment) it initialises MPI; without a
// launcher it is a job of one rank and never touches MPI.
class Job {
public:
  // The GPUs a process starts CUDA with. The CUDA runtime starts every GPU it can see, and
  // each one costs its start (about 0.2 s on a 4 x H200 host, more for every rank that
  // sees them all): `mine` narrows CUDA_VISIBLE_DEVICES, before anything starts CUDA, to
  // the one GPU this process uses (the local_rank-th of those visible; the first in a
  // one-rank job), where the host has that many; `all` leaves it (strata info). The
  // environment variable STRATA_VISIBLE_GPUS=all leaves it too.
  enum class Gpus { mine, all };

  // Idempotent. Throws Error when launched with several ranks by a build without MPI.
  // Call it first thing in main, before anything touches CUDA. With `start_gpu` (a command
  // that will compute on its GPU), the GPU left visible by `mine` begins its start on a
  // thread of its own before MPI_Init, so the two overlap.
  static Job& start(int& argc, char**& argv, Gpus gpus = Gpus::mine, bool start_gpu = false);
  // Waits for the GPU start that start(..., true) began, if any. main calls it before it
  // returns: CUDA's own teardown at exit must not meet a context still being made.
  static void join_gpu_start();
  // The started job (a one-rank job if start was never called).
  static Job& get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the ranks on this host
  int local_size() const { return local_size_; }
  bool root() const { return rank_ == 0; }
  bool mpi() const { return mpi_; }               // MPI was initialised
  std::string host() const { return host_; }

  // Collective calls: every rank must make them, in the same order.
  void barrier() const;
  // Sums in rank order after gathering every rank's value: the same bits on every rank,
  // and the same bits for the same rank count and inputs, run to run.
  double sum(double v) const;
  double max(double v) const;
  long long sum(long long v) const;
  std::vector<double> gather_all(double v) const;  // index = rank
  void broadcast(void* data, std::size_t bytes, int root = 0) const;
  // Every rank's text at `root`, index = rank (a rank's results as JSON, say); the other
  // ranks get an empty vector.
  std::vector<std::string> gather_text(const std::string& text, int root = 0) const;
  // The smallest rank for which `failed` is true, or -1 when none failed.
  int first_failed(bool failed) const;
  // Collective: returns when `why` is empty on every rank; otherwise throws AgreedError on
  // every rank with the message of the first rank whose `why` is not empty. Over several
  // ranks a rank whose `why` is empty also fails here on a bad setting the ranks would meet
  // later inside collective calls (STRATA_GPU_TRANSPORT, STRATA_IPC_SLOT_KB), as begin does.
  void agree(const std::string& why) const;

  // The end of a verb's validation (collective): every rank says whether its checks passed.
  // Returns when all did; otherwise throws PeerFailed on the ranks that passed. A rank that
  // failed calls first_failed(true) instead (main does), so the calls pair up.
  void begin();
  bool begun() const { return begun_; }

  // Binds this rank to its GPU: the one left visible by start, else the one numbered
  // local_rank. Throws Error when the host runs more ranks than it has GPUs (one rank per
  // GPU). Not collective: a verb binds before Job::begin, where the ranks agree.
  void bind_gpu();
  // Collective: whether every rank has a GPU of its own; the same answer on every rank.
  bool gpu_per_rank() const;
  // What start did to CUDA_VISIBLE_DEVICES, in words ("CUDA_VISIBLE_DEVICES=2 (was unset)"),
  // or empty when it left it.
  const std::string& gpu_visibility() const { return visibility_; }
  // How long start took (MPI_Init and the host's rank count; 0 without a launcher), in ms:
  // a run's report shows it apart from the rest of its process start.
  double start_ms() const { return start_ms_; }

  // One process's failure ends every rank (MPI_Abort); without MPI just exits. Never returns.
  [[noreturn]] void abort(int code) const;
  // MPI_Finalize (no-op without MPI). Called by main on the way out.
  void finish();

private:
  Job() = default;
  // Narrows CUDA_VISIBLE_DEVICES to the index-th visible GPU (see Gpus::mine).
  void narrow_gpus(int index);

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool mpi_ = false, finished_ = false, begun_ = false, narrowed_ = false;
  std::string host_, visibility_;
  double start_ms_ = 0;
};

// How the ranks divide the grid: dims[0] x dims[1] x dims[2] boxes along x, y, z. Rank r sits
// at coords (r % px, (r / px) % py, r / (px * py)): x fastest, like the grid's memory.
struct ProcessGrid {
  std::array<int, 3> dims{1, 1, 1};

  int ranks() const { return dims[0] * dims[1] * dims[2]; }
  std::array<int, 3> coords(int rank) const;
  int rank_of(std::array<int, 3> c) const;  // c must be inside the grid
  std::string str() const;                  // "PXxPYxPZ"

  // The grid of `ranks` boxes with the least weighted halo surface: the sum over split axes
  // of (p - 1) x the cut area, an x cut weighted 4, a y cut 2.5 and a z cut 1 (z faces travel
  // as whole planes, x and y faces are packed; measured, docs/multigpu.md "The process
  // grid"); ties go to splitting z first, then y. Boxes thinner than `min_width` on a split
  // axis are not considered. Throws Error when no grid fits (more ranks than
  // min_width-thick slabs of the grid).
  static ProcessGrid choose(Extent global, int ranks, int min_width = 1);
  // "PXxPYxPZ" (e.g. "1x1x2"), each count 1 .. kMaxDim; throws Error on anything else, its
  // message opening with `what` (the option or key that gave the text).
  static constexpr int kMaxDim = 1 << 20;
  static ProcessGrid parse(const std::string& text, const std::string& what = "process grid");
  // Whether every box of this grid over `global` is at least min_width points thick on every
  // split axis (the rule require_fits and choose apply).
  bool fits(Extent global, int min_width) const;
  // Throws Error unless this grid has `ranks` boxes and fits(global, min_width); `what`
  // starts the message.
  void require_fits(Extent global, int ranks, int min_width, const std::string& what) const;
};

// The box of the global grid that one rank owns.
struct Subdomain {
  Extent global, local;
  std::array<int, 3> offset{0, 0, 0};  // global index of the local point (0, 0, 0)
  std::array<int, 3> coords{0, 0, 0};  // this box's place in the process grid
  std::array<bool, 3> lo_face{true, true, true}, hi_face{true, true, true};  // on the global faces
  // Near-equal split: the first (n % p) boxes on an axis get one more point.
  static Subdomain of(const ProcessGrid& grid, Extent global, int rank);
  // Any split: cuts[a] holds dims[a] + 1 offsets along axis a, from 0 to the global
  // extent, box c spanning [cuts[a][c], cuts[a][c + 1]) (a coarse multigrid level's boxes
  // follow its fine level's, not the near-equal split).
  using Cuts = std::array<std::vector<int>, 3>;
  static Cuts even_cuts(const ProcessGrid& grid, Extent global);
  static Subdomain of(const ProcessGrid& grid, const Cuts& cuts, int rank);
};

// What a job of several ranks runs over in this build, in words: the MPI library between
// processes ("Open MPI v4.1.6") and what joins the GPUs ("CUDA IPC between the GPUs of one
// host, else NCCL 2.28.3"; once a job has chosen, the one it chose), or why not ("none: this
// strata was built without ...").
struct Transports {
  std::string mpi, gpu;
};
Transports transports();

// A global grid spread over the job's ranks: each rank holds its box as a Field with ghost
// layers, in host or device memory (all ranks alike).
template <class T>
class DistField {
public:
  DistField() = default;
  // Collective (every rank makes its box; a device field readies the GPU transport the
  // first time).
  DistField(Extent global, const ProcessGrid& grid, int ghost = kDefaultGhost,
            Memory memory = Memory::host);
  // The same with the boxes given (Subdomain::Cuts): every box on a split axis must be at
  // least max(ghost, 1) points thick.
  DistField(const ProcessGrid& grid, const Subdomain::Cuts& cuts, int ghost, Memory memory);

  const ProcessGrid& grid() const { return grid_; }
  const Subdomain& box() const { return box_; }
  Extent global() const { return box_.global; }
  Field<T>& local() { return local_; }
  const Field<T>& local() const { return local_; }

  // Fills `width` ghost layers: neighbours' values inside the grid, bc on the global faces
  // (periodic wraps across ranks). The same values, edges and corners included, as
  // strata::fill_ghosts on the whole grid in one process. Collective.
  void fill_ghosts(const Boundary& bc, int width, Stream stream = {});
  // The same, one axis (0 x, 1 y, 2 z) at a time: the axes must be filled in the order x,
  // y, z, each after the previous one's ghosts are in (apply overlaps the later axes).
  void fill_ghosts_axis(const Boundary& bc, int width, int axis, Stream stream = {});
  // Only the ghosts that face another rank (across the wrap too when periodic): the ghosts
  // on the global faces keep what they hold, and travel to the neighbours' edges as the
  // rest of the face does. For a boundary rule that no Boundary kind spells (a coarse
  // multigrid level's extrapolation): fill those ghosts first, then exchange. Collective.
  void exchange_ghosts(bool periodic, int width, Stream stream = {});

private:
  struct Halo;  // the exchange's pack buffers, shared by a field's copies
  void fill_axis(const Boundary& bc, int width, int axis, bool faces, Stream stream);

  ProcessGrid grid_{};
  Subdomain box_{};
  Field<T> local_;
  std::shared_ptr<Halo> halo_;
};

// out = stencil(in) on every point of the global grid, in's ghosts filled by bc: bit for
// bit what strata::apply gives on the whole grid in one process. On GPUs the halo exchange
// runs on its own stream while the interior is computed; the shell is computed once the
// halos are in. Collective.
template <class T>
void apply(const Stencil& stencil, DistField<T>& in, DistField<T>& out, const Boundary& bc,
           Stream stream = {});

// `steps` repeated steps (strata/steps.hpp) over the distributed grid, u the result: bit for
// bit what strata::apply_steps gives on the whole grid in one process. Over several ranks
// every step is one pass as dist::apply's (the interior while the halos travel, then the
// shell): no temporal blocking across ranks, options.fuse is not used. On one rank,
// strata::apply_steps on the box. `scratch`: a second field of u's grid, process grid, ghost width and memory (its
// contents are overwritten). Collective.
template <class T>
void apply_steps(const Stencil& stencil, DistField<T>& u, DistField<T>& scratch, const Boundary& bc, int steps,
                 const StepOptions& options = {}, Stream stream = {});

// Readies the GPU transport a device DistField of `grid` over `global` uses: CUDA IPC's
// mapped buffers on one host, else NCCL's communicator and its connection to each neighbour
// (once per process, chosen by STRATA_GPU_TRANSPORT). The first device
// DistField made does it anyway; a run calls it first to time it as its own phase (the
// communicators). Collective; nothing to do on one rank.
void connect_gpus(const ProcessGrid& grid, Extent global);

// Reductions over the whole grid: each rank reduces its box (strata::sum etc.), the partial
// results are combined in rank order, so the result is the same on every rank and
// reproducible for a given rank count. Collective.
template <class T>
double sum(const DistField<T>& f, Stream stream = {});
template <class T>
double dot(const DistField<T>& a, const DistField<T>& b, Stream stream = {});
template <class T>
double norm2(const DistField<T>& f, Stream stream = {});
template <class T>
double max_abs(const DistField<T>& f, Stream stream = {});

// `mine` (its interior: the box's extent) = box `b` of `whole`, a field of the global grid
// this rank holds (what a generator that fills whole grids gives every rank); the two may
// be in different memories. Not collective; on the device ordered on `stream` where both
// are there, otherwise complete on return.
template <class T>
void take_box(const Field<T>& whole, const Subdomain& b, Field<T>& mine, Stream stream = {});

// .npy files of the global grid, (nz, ny, nx) in C order like strata::npy_read_field.
// Reading: every rank reads only its own box (the file must be visible to every rank), in
// f's precision (the file's values converted). Writing: rank 0 makes the hidden temporary
// with the header, every rank writes its rows into it, and rank 0 renames it over `path`
// once every rank has succeeded: nothing half-written is ever at `path`. The directory must
// be on a filesystem every rank sees. Collective.
template <class T>
void read_npy(const std::string& path, DistField<T>& f);
template <class T>
void write_npy(const std::string& path, const DistField<T>& f);

}  // namespace strata::dist
