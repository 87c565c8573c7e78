// pdl.cuh - programmatic dependent launch (PDL, sm_90): let a kernel start before the one it
// depends on has finished.
//
// Normally kernel B, queued after kernel A, starts only when A has finished; A's tail and B's
// launch and first loads then happen one after the other. With PDL, B is launched with an
// attribute that lets it start as soon as every CTA of A has called allow_dependent_launch(), and
// B calls wait_for_prerequisite_grids() before it reads anything A writes: that wait returns once
// A has completed and its writes are visible. Whatever B does before the wait (loads that do not
// depend on A) overlaps with A. On GPUs before sm_90 both calls compile to nothing, and a normal
// launch needs neither.
#pragma once

#include "errors.cuh"

#include <cuda_runtime.h>

__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether the current GPU has PDL (compute capability 9.0 or later); asked once.
inline bool gpu_has_pdl() {
    static const bool has = [] {
        int device = 0, major = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        return major >= 9;
    }();
    return has;
}

// Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) as a programmatic dependent of
// the previous kernel in the stream (CUDA graphs capture it as a programmatic edge); on a GPU
// without PDL, as an ordinary launch.
template <class... KernelArgs, class... Args>
inline void launch_with_pdl(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                            Args... args) {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem_bytes;
    config.stream = stream;
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = gpu_has_pdl() ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}
