// cuTensorMapEncodeTiled comes from the driver; we reach it through the runtime's entry
// point query so strata links only the static CUDA runtime, not libcuda.
#include "cuda/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "cuda/check.hpp"

namespace strata::cuda {

namespace {
PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    STRATA_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                       cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p)
      throw Error("the CUDA driver does not provide cuTensorMapEncodeTiled (needs a CUDA 12+ driver)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}
// L2 promotion widens each TMA request to 64/128/256-byte lines. Off by default: it turns
// every 16-byte x halo into a full line fetched from DRAM (measured slower on H100, see
// docs/performance.md). Lab knob: STRATA_TMA_L2_PROMOTION = none | 64 | 128 | 256.
CUtensorMapL2promotion l2_promotion() {
  static const CUtensorMapL2promotion p = [] {
    const char* e = std::getenv("STRATA_TMA_L2_PROMOTION");
    const std::string v = e ? e : "none";
    if (v == "64") return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    if (v == "128") return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    if (v == "256") return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  }();
  return p;
}

}  // namespace

CUtensorMap make_plane_tensor_map(const void* base, std::size_t elem_bytes, std::int64_t pitch,
                                  std::int64_t rows, std::int64_t planes, int box_w, int box_rows) {
  return make_box_tensor_map(base, elem_bytes, pitch, rows, planes, pitch, pitch * rows, box_w,
                             box_rows);
}

CUtensorMap make_box_tensor_map(const void* base, std::size_t elem_bytes, std::int64_t nx,
                                std::int64_t ny, std::int64_t nz, std::int64_t pitch,
                                std::int64_t plane, int box_w, int box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[3] = {cuuint64_t(nx), cuuint64_t(ny), cuuint64_t(nz)};
  const cuuint64_t strides[2] = {cuuint64_t(pitch) * elem_bytes, cuuint64_t(plane) * elem_bytes};
  const cuuint32_t box[3] = {cuuint32_t(box_w), cuuint32_t(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type =
      elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  const CUresult r = encode_fn()(&map, type, 3, const_cast<void*>(base), dims, strides, box,
                                 elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                 CU_TENSOR_MAP_SWIZZLE_NONE, l2_promotion(),
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) +
                ") for a " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                std::to_string(nz) + " tensor with a " + std::to_string(box_w) + "x" +
                std::to_string(box_rows) + " box");
  return map;
}

}  // namespace strata::cuda
