// What this build and this machine can do: the CUDA backend, visible devices, memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// Where a run computes: the one vocabulary of the CLI (--device), the wave configuration
// ("device"), the drivers and Python. `automatic` is the GPU when one can be used, else the
// CPU; resolve() says which.
enum class Device { automatic, cpu, cuda };

// "auto" | "cpu" | "cuda" ("gpu" is read as cuda; "" as auto); anything else is refused with
// the list. `what` starts the message ("--device", "device").
Device parse_device(std::string_view text, const std::string& what = "device");
const char* to_string(Device d);  // "auto", "cpu", "cuda"
// cpu or cuda: automatic becomes cuda where cuda_available(), else cpu; cuda where no GPU
// can be used is refused with why (`what` starts the message).
Device resolve(Device d, const std::string& what = "device");
// The memory a run on `d` (cpu or cuda) keeps its fields in.
inline bool on_gpu(Device d) { return d == Device::cuda; }

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0, free_memory = 0;
  std::size_t l2_bytes = 0;
  double memory_clock_khz = 0;
  int memory_bus_bits = 0;
};

struct BuildInfo {
  std::string version;
  std::string commit;       // git commit the binary was built from ("unknown" outside git)
  std::string build_type;
  bool cuda = false;        // CUDA backend compiled in
  std::string cuda_architectures;
  std::string compiler;
  bool cpu_fft = false;     // the CPU's FFT (KissFFT) compiled in: the fft solver on host fields
};

const BuildInfo& build_info();

// True when the CUDA backend is compiled in and at least one device is visible.
bool cuda_available();
// Devices visible to this process; empty when none (or built without CUDA). Starts a CUDA
// context on each (their free memory): strata info's list, not for a run's report.
std::vector<DeviceInfo> cuda_devices();
// How many devices are visible, without starting a context on any.
int cuda_device_count();
// The device this process uses (the current one), starting a context on it alone.
DeviceInfo cuda_current_device();
// Why cuda_available() is false, in words ("built without CUDA", "no CUDA device: ...").
std::string cuda_unavailable_reason();
// Why the fft Poisson solver cannot solve on the CPU in this build, naming what to install
// ("" where it can, build_info().cpu_fft).
std::string cpu_fft_unavailable_reason();

// Throws Error, before anything is allocated, when `bytes` more device memory will not
// fit in what the current device has free; `what` names the request in the message.
void require_device_memory(std::size_t bytes, const std::string& what);

// Blocks until all device work is done (no-op without CUDA).
void device_synchronize();

}  // namespace strata
