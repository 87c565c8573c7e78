// async_copy.cuh - cp.async (sm_80+): 16-byte copies from global to shared memory that do not
// pass through registers, grouped and waited on in order. The basis of a multi-stage pipeline:
// a thread issues the copies of stage s + STAGES - 1, then computes on stage s.
// Below sm_80 these compile to nothing: kernels that use them are gated to sm_80 at run time.
#pragma once

#include "shared_address.cuh"

#include <cuda_runtime.h>

__device__ __forceinline__ void copy_16_async(void* smem_dst, const void* global_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(smem_dst)), "l"(global_src) : "memory");
#endif
}
// The same, or 16 zero bytes when !valid (the source is then not read at all).
__device__ __forceinline__ void copy_16_async_or_zero(void* smem_dst, const void* global_src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_address(smem_dst)), "l"(global_src), "r"(valid ? 16 : 0)
                 : "memory");
#endif
}
__device__ __forceinline__ void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
// Waits until at most PENDING committed groups of this thread are still in flight.
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
#endif
}

// The main loop of a pipeline of STAGES shared-memory buffers that cp.async fills (the tensor-core
// GEMMs of steps 3 and 4). Before it, the caller has issued the copies of K-tiles 0..STAGES-2, one
// committed group each. Per K-tile kt: wait until at most STAGES-2 of this thread's groups are in
// flight (kt's copies have landed), __syncthreads (everyone's have, and no warp still reads K-tile
// kt - 1, whose buffer load(kt + STAGES - 1) refills), load that K-tile, commit (an empty group
// past the last K-tile keeps the count), and compute kt.
template <int STAGES, class Load, class Compute>
__device__ __forceinline__ void cp_async_pipeline(int k_tiles, Load&& load, Compute&& compute) {
    static_assert(STAGES >= 2, "one buffer is computed while the others are copied");
    for (int kt = 0; kt < k_tiles; ++kt) {
        wait_copies<STAGES - 2>();
        __syncthreads();
        if (const int next = kt + STAGES - 1; next < k_tiles) load(next);
        commit_copies();
        compute(kt);
    }
}
