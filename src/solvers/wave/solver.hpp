// The wave driver, written once for every backend: owns the configuration, the resolved
// plan and a Backend<T>, and runs the time loop's bookkeeping (step counter, wavelet
// blocks, receiver rows, checkpoints). SolverT<T> is what wave::Solver hides behind its
// pImpl (detail::SolverImpl, reached with detail::impl_of); the run driver (run.cpp) uses
// its typed accessors to write outputs in T. Owns the time loop and the state's round trip
// (checkpoints); uses model, plan, numerics, checkpoint and the backend seam (backend/wave.hpp,
// whose factory on_backend picks from the plan's device); no output directory, nothing printed.
// Distributed (a process grid given): this rank steps its box (partition.hpp) and trades u's
// ghost layers with its neighbours after every step; the field, traces and checkpoints it
// hands out are its own box's, its receivers' columns.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/wave.hpp"
#include "parallel/halo.hpp"
#include "solvers/wave/partition.hpp"
#include "strata/wave.hpp"

namespace strata::wave {

namespace detail {

class SolverImpl {
public:
  virtual ~SolverImpl() = default;
  virtual const Config& config() const = 0;
  virtual const Plan& plan() const = 0;
  virtual int step() const = 0;
  virtual void advance(int steps) = 0;
  virtual void set_state(std::span<const double> u, std::span<const double> u_prev) = 0;
  virtual std::vector<double> wavefield() const = 0;
  virtual std::vector<double> traces() const = 0;
  virtual int rows() const = 0;
  virtual void save_checkpoint(const std::string& path) const = 0;
  virtual void load_checkpoint(const std::string& path) = 0;
  virtual void synchronize() = 0;
  // Seconds the constructor spent making the backend's fields and loading the velocity into
  // them (the rest of its time is the model, the plan and the partition): a run's phases.
  virtual double fields_seconds() const = 0;
};

}  // namespace detail

template <class T>
class SolverT final : public detail::SolverImpl {
public:
  // grid: a run over the job's ranks, this rank's box of it (null: the whole grid here).
  explicit SolverT(const Config& c, const dist::ProcessGrid* grid = nullptr);

  const Config& config() const override { return cfg_; }
  const Plan& plan() const override { return plan_; }
  int step() const override { return n_; }
  void advance(int steps) override;
  void set_state(std::span<const double> u, std::span<const double> u_prev) override;
  std::vector<double> wavefield() const override;
  std::vector<double> traces() const override;
  int rows() const override { return rows_ == 0 ? 1 : rows_; }
  void save_checkpoint(const std::string& path) const override;
  void load_checkpoint(const std::string& path) override;
  void synchronize() override { backend_->synchronize(); }
  double fields_seconds() const override { return fields_s_; }

  // Whether u is finite everywhere, checked where it lives (no copy).
  bool wavefield_finite() { return backend_->wavefield_finite(); }
  // The backend's step timeline (Backend::step_timeline; STRATA_WAVE_TIMELINE=1).
  std::vector<std::pair<std::string, double>> step_timeline() { return backend_->step_timeline(); }
  // In the run's precision, for the output writers: u dense (this rank's box), and the
  // traces (rows x this rank's receivers).
  std::vector<T> field_values() const;
  std::vector<T> trace_values() const;

  // Distributed runs. The partition (null in one process). connect: collective, once, after
  // every rank has validated (Job::begin): the device transport's links to the neighbours,
  // and u's ghosts (a checkpoint may be loaded before it, rank by rank).
  const Partition* partition() const { return part_ ? &*part_ : nullptr; }
  void connect();
  // Collective: the whole seismogram (rows x every receiver, in plan order) at rank 0; the
  // other ranks get an empty vector. In one process, trace_values().
  std::vector<T> gathered_traces() const;

private:
  void ensure_first_row() const;
  void load_wavelets(int first);
  void exchange(void* stream = nullptr, void* packed = nullptr);  // u's ghost layers from the neighbours (distributed runs)

  Config cfg_;
  Plan plan_;
  Setup setup_;
  std::unique_ptr<Backend<T>> backend_;
  int n_ = 0;
  mutable int rows_ = 0;  // rows recorded; row 0 (step 0) is taken on first need
  int wl_first_ = 0, wl_count_ = 0;
  std::optional<Partition> part_;
  double fields_s_ = 0;
  bool connected_ = false;  // connect() was called: loads exchange u's ghosts at once
  dist::halo::Buffers halo_;  // u's pack buffers (distributed runs)
};

}  // namespace strata::wave
