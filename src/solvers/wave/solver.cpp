// The wave driver (see solver.hpp) and wave::Solver's forwarding. Source amplitudes
// are evaluated here, in double, in blocks of steps, so every backend injects the same
// numbers and a restarted run recomputes exactly what the uninterrupted one used.
#include "solvers/wave/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "dispatch/backend.hpp"
#include "parallel/halo.hpp"
#include "solvers/wave/checkpoint.hpp"
#include "solvers/wave/geometry.hpp"
#include "solvers/wave/model.hpp"
#include "solvers/wave/numerics.hpp"
#include "solvers/wave/plan.hpp"

namespace strata::wave {

namespace {

constexpr int kWaveletBlock = 1024;  // steps of source amplitudes handed over at once

// The plan's device is cpu or cuda (run_device), the memory the run's fields live in;
// on_backend picks the backend of that memory.
template <class T>
std::unique_ptr<Backend<T>> make_backend(Device device, const Setup& s) {
  const Memory memory = device == Device::cpu ? Memory::host : Memory::device;
  return on_backend(
      memory, [&](auto tag) { return make_wave_backend<T>(tag, s); },
      "device \"cuda\": strata was built without CUDA");
}

// The sections of two configurations' physics that differ, for a refused restart.
std::string differing_sections(const std::string& a_json, const std::string& b_json) {
  const auto a = nlohmann::json::parse(a_json, nullptr, false), b = nlohmann::json::parse(b_json, nullptr, false);
  if (a.is_discarded() || b.is_discarded()) return "";
  std::string out;
  for (const char* key : {"grid", "model", "scheme", "sources", "receivers", "boundary"})
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) out += (out.empty() ? "" : ", ") + std::string(key);
  const auto dt = [](const nlohmann::json& j) { return j.contains("time") ? j["time"].value("dt", nlohmann::json()) : nlohmann::json(); };
  if (dt(a) != dt(b)) out += (out.empty() ? "" : ", ") + std::string("time.dt");
  return out;
}

// Text from rank 0 to every rank.
std::string from_root(const std::string& text) {
  const dist::Job& job = dist::Job::get();
  std::size_t len = text.size();
  job.broadcast(&len, sizeof len, 0);
  std::string out = job.rank() == 0 ? text : std::string(len, '\0');
  if (len > 0) job.broadcast(out.data(), len, 0);
  return out;
}

// A .npy model of a run split over ranks, without any rank holding the whole of it (each
// held a copy before: N models on a host of N ranks, past what each rank's memory check
// counted). Rank 0 checks every value and finds the extremes in one pass over the file; every
// rank resolves the run from them (each the same, so each throws alike or none does); rank 0
// streams the file into the physics digest and hands the digest on; each rank reads its box.
// A failure on rank 0 reaches every rank as the same message: the ranks agree on it as on
// any refusal. The digest, extremes and first bad value are one process's.
// (Collective: every rank calls it, having agreed that none refused the run so far.)
template <class T>
Resolved resolve_split_file(const Config& c, const dist::Subdomain& box, std::vector<T>& mine) {
  const dist::Job& job = dist::Job::get();
  const bool root = job.rank() == 0;
  ModelExtremes ext;
  std::string why;
  if (root) {
    try {
      ext = scan_model_file<T>(c);
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  job.agree(why);  // rank 0's refusal (a bad value, a read error) on every rank
  job.broadcast(&ext, sizeof ext, 0);
  // The same inputs on every rank: each throws alike, or none does.
  Resolved r = resolve<T>(c, ext.v_min, ext.v_max, [&](io::Digest& d) {
    if (!root) return;
    try {
      digest_model_file<T>(c, d);
    } catch (const std::exception& e) {
      why = e.what();
    }
  });
  job.agree(why);
  r.plan.digest = from_root(r.plan.digest);
  mine = read_model_box<T>(c, box.offset, box.local);  // a rank's own failure: agreed by the caller's run
  return r;
}

}  // namespace

template <class T>
SolverT<T>::SolverT(const Config& c, const dist::ProcessGrid* grid) : cfg_(c) {
  const bool split = grid != nullptr;  // a 1x1x1 grid too: the distributed path on one rank
  const dist::Subdomain box = split ? wave_box(cfg_, *grid, dist::Job::get().rank()) : dist::Subdomain{};
  // A .npy model over several ranks: each reads its own box (resolve_split_file, collective);
  // else the model is read whole (a plane per z for constant and layered ones).
  const bool file_split = split && cfg_.model == ModelKind::npy && dist::Job::get().size() > 1;
  std::string refused;  // with file_split, a rank's own refusal, agreed before the collective read
  try {
    if (split) {
      // Before the model is read or anything allocated: what this rank's box will hold.
      Config box_cfg = cfg_;
      box_cfg.shape = box.local;
      require_host_memory(box_cfg, run_device(cfg_));
    } else {
      require_host_memory(cfg_, run_device(cfg_));
    }
    if (file_split) inspect_model_file(cfg_);  // every rank: the file is there, of the grid's shape
  } catch (const std::exception& e) {
    if (!file_split) throw;
    refused = e.what();
  }
  if (file_split) dist::Job::get().agree(refused);
  VelocityModel<T> v;
  std::vector<T> mine;
  Resolved r;
  if (file_split) {
    r = resolve_split_file<T>(cfg_, box, mine);
  } else {
    v = load_velocity<T>(cfg_);
    r = resolve<T>(cfg_, v.values());
  }
  plan_ = std::move(r.plan);
  setup_ = std::move(r.setup);
  if (split) {
    part_.emplace();
    setup_ = partition_setup(setup_, *grid, box, *part_);
  }
  const auto t_fields = std::chrono::steady_clock::now();
  backend_ = make_backend<T>(plan_.device, setup_);
  if (part_) backend_->set_halo_exchange([this](void* stream, void* packed) { exchange(stream, packed); });
  const bool planes = !file_split && !v.planes.empty();
  if (part_ && !file_split) mine = box_values<T>(v.values(), cfg_.shape, part_->box, planes);
  const std::span<const T> values = part_ ? std::span<const T>(mine) : v.values();
  if (planes) backend_->set_velocity_planes(values, plan_.dt / cfg_.spacing);
  else backend_->set_velocity(values, plan_.dt / cfg_.spacing);
  fields_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_fields).count();
}

template <class T>
void SolverT<T>::connect() {
  if (!part_) return;
  if (plan_.device == Device::cuda) dist::halo::connect_device(part_->grid, part_->box);
  connected_ = true;
  exchange();
}

template <class T>
void SolverT<T>::exchange(void* stream, void* packed) {
  // The Laplacian is a star: the faces of every split axis in one round, no edges or corners.
  dist::halo::exchange_faces(backend_->wavefield(), part_->grid, part_->box, part_->wrap, setup_.radius, halo_,
                             stream, packed);
}

template <class T>
std::vector<T> SolverT<T>::gathered_traces() const {
  std::vector<T> mine = trace_values();
  if (!part_) return mine;
  // Each rank's columns, then its rows x columns values, as one block of bytes.
  const std::size_t nc = part_->columns.size();
  std::string blob(sizeof(std::size_t) + nc * sizeof(int) + mine.size() * sizeof(T), '\0');
  std::memcpy(blob.data(), &nc, sizeof nc);
  std::memcpy(blob.data() + sizeof nc, part_->columns.data(), nc * sizeof(int));
  std::memcpy(blob.data() + sizeof nc + nc * sizeof(int), mine.data(), mine.size() * sizeof(T));
  const std::vector<std::string> all = dist::Job::get().gather_text(blob, 0);
  if (all.empty()) return {};
  const std::size_t nrec = plan_.receivers.size(), nrows = std::size_t(rows());
  std::vector<T> out(nrows * nrec);
  for (const std::string& b : all) {
    std::size_t n = 0;
    std::memcpy(&n, b.data(), sizeof n);
    std::vector<int> cols(n);
    std::memcpy(cols.data(), b.data() + sizeof n, n * sizeof(int));
    const char* vals = b.data() + sizeof n + n * sizeof(int);
    require(b.size() == sizeof n + n * sizeof(int) + nrows * n * sizeof(T), "internal: a rank's traces of the wrong size");
    for (std::size_t row = 0; row < nrows; ++row)
      for (std::size_t k = 0; k < n; ++k)
        std::memcpy(&out[row * nrec + std::size_t(cols[k])], vals + (row * n + k) * sizeof(T), sizeof(T));
  }
  return out;
}

template <class T>
void SolverT<T>::ensure_first_row() const {
  if (rows_ > 0) return;
  backend_->record(0);
  rows_ = 1;
}

template <class T>
void SolverT<T>::load_wavelets(int first) {
  const int count = std::max(1, std::min(kWaveletBlock, cfg_.steps - first));
  const std::size_t ns = cfg_.sources.size();
  std::vector<double> amps(std::size_t(count) * ns);
  for (int i = 0; i < count; ++i)
    for (std::size_t j = 0; j < ns; ++j) {
      amps[std::size_t(i) * ns + j] = source_wavelet(cfg_.sources[j], double(first + i) * plan_.dt);
    }
  backend_->set_wavelets(first, count, amps);
  wl_first_ = first;
  wl_count_ = count;
}

template <class T>
void SolverT<T>::advance(int steps) {
  require(steps >= 0 && n_ + steps <= cfg_.steps,
          "cannot advance " + std::to_string(steps) + " steps from step " + std::to_string(n_) +
              ": the configuration has time.steps = " + std::to_string(cfg_.steps));
  ensure_first_row();
  const int every = cfg_.receiver_every;
  for (int i = 0; i < steps; ++i) {
    if (!cfg_.sources.empty() && (n_ < wl_first_ || n_ >= wl_first_ + wl_count_)) load_wavelets(n_);
    backend_->step(n_);  // a distributed run's backend exchanges the ghosts (set_halo_exchange)
    ++n_;
    if (n_ % every == 0) {
      backend_->record(n_ / every);
      rows_ = n_ / every + 1;
    }
  }
}

template <class T>
void SolverT<T>::set_state(std::span<const double> u, std::span<const double> u_prev) {
  require(n_ == 0, "set_state: the state can only be replaced at step 0");
  const std::size_t n = cfg_.shape.points();
  require(u.size() == n && u_prev.size() == n,
          "set_state: u and u_prev must each hold nx*ny*nz = " + std::to_string(n) + " values");
  std::vector<NamedArray<T>> arrays(2);
  arrays[0].name = "u";
  arrays[1].name = "u_prev";
  arrays[0].data.assign(u.begin(), u.end());
  arrays[1].data.assign(u_prev.begin(), u_prev.end());
  if (part_)
    for (auto& a : arrays) a.data = box_values<T>(a.data, cfg_.shape, part_->box, false);
  backend_->load(arrays);
  if (connected_) exchange();
  rows_ = 0;  // row 0 samples the new u
}

template <class T>
std::vector<T> SolverT<T>::field_values() const {
  for (auto& a : backend_->save())
    if (a.name == "u") return std::move(a.data);
  throw Error("internal: the backend saved no 'u'");
}

template <class T>
std::vector<T> SolverT<T>::trace_values() const {
  ensure_first_row();
  return backend_->traces(rows_);
}

template <class T>
std::vector<double> SolverT<T>::wavefield() const {
  const std::vector<T> v = field_values();
  return {v.begin(), v.end()};
}

template <class T>
std::vector<double> SolverT<T>::traces() const {
  const std::vector<T> v = trace_values();
  return {v.begin(), v.end()};
}

template <class T>
void SolverT<T>::save_checkpoint(const std::string& path) const {
  ensure_first_row();
  Checkpoint<T> c;
  c.step = n_;
  c.trace_rows = rows_;
  c.digest = plan_.digest;
  c.config_json = to_json(cfg_);
  if (part_) c.partition = part_->describe();
  // Streamed from where the state lives: the host never holds a copy of the grids.
  std::vector<ArraySource<T>> sources;
  for (const StateSlot& slot : state_slots(setup_)) {
    const bool field = slot.kind == StateSlot::u || slot.kind == StateSlot::u_prev;
    sources.push_back({state_name(slot, setup_), state_size(slot, setup_),
                       field ? std::size_t(setup_.n.nx) * setup_.n.ny : 1,
                       [this, slot](std::size_t first, std::size_t n, T* dst) { backend_->read_state(slot, first, n, dst); }});
  }
  const std::vector<T> traces = backend_->traces(rows_);
  sources.push_back({"traces", traces.size(), 1, [&traces](std::size_t first, std::size_t n, T* dst) {
                       std::copy_n(traces.data() + first, n, dst);
                     }});
  // A distributed run's ranks rename their files together, once every one is written.
  std::function<void()> together;
  if (part_) together = [] { dist::Job::get().barrier(); };
  write_checkpoint(path, c, sources, together);
}

template <class T>
void SolverT<T>::load_checkpoint(const std::string& path) {
  // Everything the header says is checked before the data is read: the configuration's
  // digest, the step, the trace rows, and (in read_checkpoint) each array's name and size.
  Checkpoint<T> c = read_checkpoint<T>(path, [&](const Checkpoint<T>& h) {
    if (h.digest != plan_.digest) {
      const std::string diff = differing_sections(h.config_json, to_json(cfg_));
      throw Error("checkpoint '" + path + "' was written by a different configuration (digest " + h.digest +
                  ", this configuration " + plan_.digest + ")" + (diff.empty() ? "" : "; differing: " + diff) +
                  ". The grid, model, time.dt, scheme, sources, receivers and boundaries must be the same; "
                  "time.steps, output and device may change");
    }
    const std::string mine = part_ ? part_->describe() : "";
    if (h.partition != mine)
      throw Error("checkpoint '" + path + "' holds " + (h.partition.empty() ? "a one-process run's state" : "the state of " + h.partition) +
                  ", but this is " + (mine.empty() ? "a one-process run" : mine) +
                  ": a run continues from the checkpoints of the same ranks and process grid (--grid)");
    require(h.step <= cfg_.steps, "checkpoint '" + path + "' is at step " + std::to_string(h.step) +
                                      ", past time.steps = " + std::to_string(cfg_.steps));
    require(h.trace_rows == h.step / cfg_.receiver_every + 1,
            "checkpoint '" + path + "' holds " + std::to_string(h.trace_rows) + " trace rows for step " +
                std::to_string(h.step) + "; receivers.every = " + std::to_string(cfg_.receiver_every) + " makes " +
                std::to_string(h.step / cfg_.receiver_every + 1));
    std::vector<ArraySpec> want;
    for (const StateSlot& slot : state_slots(setup_)) want.push_back({state_name(slot, setup_), state_size(slot, setup_)});
    want.push_back({"traces", std::size_t(h.trace_rows) * setup_.receivers.size()});
    return want;
  });
  std::vector<NamedArray<T>> state;
  const NamedArray<T>* traces = nullptr;
  for (auto& a : c.arrays) {
    if (a.name == "traces") traces = &a;
    else state.push_back(std::move(a));
  }
  backend_->load(state);
  backend_->set_traces(traces->data, c.trace_rows);
  if (connected_) exchange();  // otherwise connect() does
  n_ = c.step;
  rows_ = c.trace_rows;
  wl_count_ = 0;
}

template class SolverT<float>;
template class SolverT<double>;

// ---- wave::Solver -------------------------------------------------------------------

Solver::Solver(const Config& cfg) {
  if (cfg.precision == Precision::f32) impl_ = std::make_unique<SolverT<float>>(cfg);
  else impl_ = std::make_unique<SolverT<double>>(cfg);
}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;
const Config& Solver::config() const { return impl_->config(); }
const Plan& Solver::plan() const { return impl_->plan(); }
int Solver::step() const { return impl_->step(); }
void Solver::advance(int steps) { impl_->advance(steps); }
void Solver::set_state(std::span<const double> u, std::span<const double> u_prev) { impl_->set_state(u, u_prev); }
std::vector<double> Solver::wavefield() const { return impl_->wavefield(); }
std::vector<double> Solver::traces() const { return impl_->traces(); }
int Solver::trace_rows_recorded() const { return impl_->rows(); }
void Solver::save_checkpoint(const std::string& path) const { impl_->save_checkpoint(path); }
void Solver::load_checkpoint(const std::string& path) { impl_->load_checkpoint(path); }
void Solver::synchronize() { impl_->synchronize(); }

detail::SolverImpl& detail::impl_of(Solver& s) { return *s.impl_; }

}  // namespace strata::wave
