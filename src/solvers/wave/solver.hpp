// The wave driver, written once for every backend: owns the configuration, the resolved
// plan and a Backend<T>, and runs the time loop's bookkeeping (step counter, wavelet
// blocks, receiver rows, checkpoints). SolverT<T> is what wave::Solver hides behind its
// pImpl (detail::SolverImpl, reached with detail::impl_of); the run driver (run.cpp) uses
// its typed accessors to write outputs in T. Owns the time loop and the state's round trip
// (checkpoints); uses model, plan, numerics, checkpoint and the backend seam (backend/wave.hpp,
// where it picks the cpu:: or cuda:: factory); no output directory, nothing printed.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/wave.hpp"
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
};

}  // namespace detail

template <class T>
class SolverT final : public detail::SolverImpl {
public:
  explicit SolverT(const Config& c);

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

  // Whether u is finite everywhere, checked where it lives (no copy).
  bool wavefield_finite() { return backend_->wavefield_finite(); }
  // In the run's precision, for the output writers.
  std::vector<T> field_values() const;
  std::vector<T> trace_values() const;

private:
  void ensure_first_row() const;
  void load_wavelets(int first);

  Config cfg_;
  Plan plan_;
  Setup setup_;
  std::unique_ptr<Backend<T>> backend_;
  int n_ = 0;
  mutable int rows_ = 0;  // rows recorded; row 0 (step 0) is taken on first need
  int wl_first_ = 0, wl_count_ = 0;
};

}  // namespace strata::wave
