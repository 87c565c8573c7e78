// tma.cuh - the Hopper copy engine (sm_90): bulk copies and tensor maps, counted by mbarriers.
//
// cp.async (async_copy.cuh) makes every thread copy its own 16-byte pieces: each piece costs the
// thread an address computation and an instruction, and a __syncthreads per stage tells everyone
// the stage has landed. The Tensor Memory Accelerator (TMA) copies a whole box of a matrix on the
// request of one thread: the other threads issue nothing. Rows past the matrix come back as zeros,
// and the copy can swizzle the rows on the way in (the same XOR of 16-byte pieces by row % 8 that
// an ldmatrix-friendly layout needs). Completion is counted in bytes on an mbarrier, a 64-bit
// object in shared memory: a thread announces how many bytes a stage expects
// (arrive_expect_tx), the copies count them down, and consumers wait for the barrier's phase to
// flip (wait_barrier). A second barrier per stage, on which every consumer arrives, tells the
// copying thread that a stage may be overwritten.
// A tensor map (CUtensorMap, 128 bytes) describes the matrix to the TMA: it is built on the host
// (tensor_map_2d) and passed to the kernel as a __grid_constant__ parameter.
// Below sm_90 the device functions compile to nothing: kernels that use them are gated to sm_90.
#pragma once

#include "errors.cuh"
#include "shared_address.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>

__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
#endif
}
// After init_barrier and before the __syncthreads that publishes the barriers: the copy engine
// (the "async proxy") must see them initialized too.
__device__ __forceinline__ void fence_barrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// One arrival that also announces `bytes` more bytes for the current phase.
__device__ __forceinline__ void arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
#endif
}
// Waits until the phase with this parity (0, 1, 0, ... for phases 0, 1, 2, ...) has completed.
__device__ __forceinline__ void wait_barrier(uint64_t* bar, uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t done = 0;
    do {
        asm volatile(
            "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(shared_address(bar)), "r"(parity)
            : "memory");
    } while (!done);
#endif
}

// A place in a ring of `stages` buffers, each guarded by its barriers: the buffer, and the parity
// of the phase that completes this use of it (a consumer waits for its full barrier's phase with
// that parity; a producer refilling it waits for the empty barrier's phase before, parity ^ 1).
// Stepping it one buffer on divides nothing by the stage count, which may be known only at run
// time (a division by such a number is some 20 instructions, once per stage in every warp).
struct RingPosition {
    int stage = 0;
    uint32_t parity = 0;
    __device__ __forceinline__ RingPosition next(int stages) const {
        return stage + 1 == stages ? RingPosition{0, parity ^ 1u} : RingPosition{stage + 1, parity};
    }
};
// `bytes` (a multiple of 16) contiguous bytes from global to shared memory, counted on `bar`.
__device__ __forceinline__ void bulk_copy(void* smem_dst, const void* global_src, uint32_t bytes, uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(smem_dst)),
                 "l"(global_src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
#endif
}
// The box of `map` whose first element is (column x, row y), counted on `bar`.
__device__ __forceinline__ void tensor_copy_2d(void* smem_dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            shared_address(smem_dst)),
        "l"(map), "r"(x), "r"(y), "r"(shared_address(bar))
        : "memory");
#endif
}

// The same box, written at the same shared-memory offset in every CTA of the cluster whose bit is
// set in `cta_mask` (bit r: the CTA of rank r), and counted on the barrier at `bar`'s offset in
// each of them: one read of L2 serves several SMs (TMA multicast). Compiled only into sm_90a code,
// like the wgmma of its one caller (step 3's wgmma_g128_pair): for sm_100 and sm_120 without their
// "a" suffix, ptxas warns that this modifier may be slow there, and nothing there would launch it.
__device__ __forceinline__ void tensor_copy_2d_multicast(void* smem_dst, const CUtensorMap* map, int x, int y, uint64_t* bar,
                                                         uint16_t cta_mask) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(smem_dst)),
        "l"(map), "r"(x), "r"(y), "r"(shared_address(bar)), "h"(cta_mask)
        : "memory");
#endif
}
// The driver's encoder of tensor maps, found through the runtime (no link against libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !fn) {
            std::fprintf(stderr, "CUDA error: the driver has no cuTensorMapEncodeTiled\n");
            std::exit(EXIT_CUDA_ERROR);
        }
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encode;
}

// A row-major matrix of `rows` x `cols` elements at `base`, read in boxes of box_rows x box_cols
// (box_cols * element bytes: a multiple of 16, at most 128 with SWIZZLE_128B). Boxes reaching past
// the matrix are filled with zeros.
inline CUtensorMap tensor_map_2d(const void* base, CUtensorMapDataType type, int element_bytes, uint64_t rows, uint64_t cols,
                                 uint32_t box_rows, uint32_t box_cols, CUtensorMapSwizzle swizzle) {
    CUtensorMap map;
    const cuuint64_t dims[2] = {cols, rows};
    const cuuint64_t row_stride[1] = {cols * (uint64_t)element_bytes};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = tensor_map_encoder()(&map, type, 2, const_cast<void*>(base), dims, row_stride, box, element_strides,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "CUDA error %d: cuTensorMapEncodeTiled (%llu x %llu, box %u x %u)\n", (int)r,
                     (unsigned long long)rows, (unsigned long long)cols, box_rows, box_cols);
        std::exit(EXIT_CUDA_ERROR);
    }
    return map;
}
