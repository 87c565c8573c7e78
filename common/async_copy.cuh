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
