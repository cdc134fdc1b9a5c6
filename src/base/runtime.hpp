// Memory services the core needs from whichever backend owns the memory: device
// allocation and copies that may cross host/device. Without CUDA, device requests throw
// and copies are plain memcpy. Implemented by src/cuda/runtime.cpp or src/nocuda/runtime.cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "strata/field.hpp"

namespace strata::runtime {

void* device_alloc_zeroed(std::size_t bytes);  // checks free memory first
void device_free(void* p) noexcept;
// Throws Error unless p is device (or managed) memory of the current device; `what` names
// the call for the message. Without CUDA every pointer is refused.
void require_device_pointer(const void* p, const std::string& what);
// Like memcpy / cudaMemcpy2D between memories of the given kinds; synchronous. Host to
// host never touches CUDA, so host fields work in a CUDA build on a machine with no GPU.
void copy_bytes(void* dst, Memory dst_mem, const void* src, Memory src_mem, std::size_t bytes);
// The same, ordered on `stream` (device to device or host to host; host at once).
void copy_bytes_async(void* dst, const void* src, Memory memory, std::size_t bytes, void* stream);
void copy_2d(void* dst, Memory dst_mem, std::size_t dpitch, const void* src, Memory src_mem,
             std::size_t spitch, std::size_t width_bytes, std::size_t height);
// depth planes of height rows of width_bytes each, planes drows (srows) rows of dpitch
// (spitch) bytes apart, in one call (not one per plane: a 512^3 copy between layouts took
// 3 ms as 512 synchronous cudaMemcpy2D calls). Device to device, copy_2d and copy_3d run a
// copy kernel (cudaMemcpy3D reached only 0.55 of cudaMemcpy on the H200) and return when it
// is done; across host and device they are cudaMemcpy2D / cudaMemcpy3D.
void copy_3d(void* dst, Memory dst_mem, std::size_t dpitch, std::size_t drows, const void* src,
             Memory src_mem, std::size_t spitch, std::size_t srows, std::size_t width_bytes,
             std::size_t height, std::size_t depth);

// Streams and CUDA graphs for solvers that replay a fixed sequence of passes. Without CUDA
// (or for host work) the stream is null and "capture" just returns null: run directly.
void* stream_create();
void stream_destroy(void* stream) noexcept;
void stream_synchronize(void* stream);
// Records what `enqueue` launches on `stream` into an executable graph.
void* graph_capture(void* stream, const std::function<void()>& enqueue);
void graph_launch(void* graph, void* stream);
void graph_destroy(void* graph) noexcept;

// Ordering between streams (the distributed apply's halo stream and compute stream):
// `stream_wait` makes later work on `stream` wait for what `event_record` captured.
// Without CUDA these do nothing (host work runs in program order).
void* event_create();
void* event_create_timed();  // for event_elapsed_ms (benchmarks' timelines)
float event_elapsed_ms(void* from, void* to);  // waits for `to`
void event_destroy(void* event) noexcept;
// A stream whose kernels the GPU schedules ahead of the default priority's (halo work).
void* stream_create_high_priority();
void event_record(void* event, void* stream);
// The same, kept in a graph as an event node when `stream` is being captured (a timed mark
// inside a captured cycle: cudaEventRecordExternal, which is invalid outside a capture);
// otherwise as event_record.
void event_record_in_graph(void* event, void* stream);
void stream_wait(void* stream, void* event);

// Makes `index` the current device of this process (one rank per GPU). Throws Error when
// there is no such device.
void set_device(int index);

// Begins making the context of device 0 (the one GPU a narrowed process sees) on a thread of
// its own and returns at once: the 0.1-0.4 s it takes (1.6 s when four ranks of a host start
// theirs together) passes while the process starts MPI and reads its options. A later CUDA
// call waits for it as for its own start; a failure is left for that call to meet. Once per
// process. Without CUDA it does nothing.
void start_device_early();
// Waits for start_device_early's thread, if any. Call it before the process returns from
// main: CUDA's own teardown at exit must not meet a context still being made.
void join_device_start();
// Makes the context of the current device now, after start_device_early's thread if any: a
// run reports the device's start (device_start) apart from its own work. Throws Error when
// it fails. Without CUDA it does nothing.
void start_device();

// The GPUs this process may use, counted without starting CUDA: the entries of
// CUDA_VISIBLE_DEVICES where it is set (`entries`, if given, gets them), else the NVIDIA
// device nodes /dev/nvidiaN this process may open (a container shows only the GPUs it was
// given); -1 when neither can be read. (base/device.cpp: no CUDA needed.)
int gpus_without_cuda(std::vector<std::string>* entries = nullptr);
// Whether this process has asked CUDA about its devices (cuda_available() and every GPU
// resource ask first). Until it has, no GPU work of strata's can exist.
bool cuda_started();
// Whether a GPU can be used, for a CPU run's advice ("or --device cuda"): the runtime's answer
// once CUDA has started, else gpus_without_cuda(). Asking CUDA would start it, which a CPU
// command must not pay for (0.3 s a process on a 4 x H200 host).
bool gpu_usable_for_advice();

}  // namespace strata::runtime
