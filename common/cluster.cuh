// cluster.cuh - thread block clusters (sm_90): CTAs that run at the same time, on neighbouring
// SMs, and can read each other's shared memory.
//
// A kernel launched with a cluster dimension (cudaLaunchAttributeClusterDimension, up to 8 CTAs
// on any sm_90 GPU) has its CTAs grouped: the hardware schedules a cluster's CTAs together on
// SMs of one GPC, gives each a rank, and maps every CTA's shared memory into one "distributed
// shared memory" window that the others reach with ld.shared::cluster. A cluster barrier waits
// for every thread of every CTA of the cluster; with release/acquire semantics, what a thread wrote
// to shared memory before it arrived is visible to every thread of the cluster after the wait.
// Step 3's rung 07 uses a cluster to split K: each CTA of the cluster multiplies a slice of K, and
// the partial sums meet through distributed shared memory instead of global memory.
// Below sm_90 these compile to nothing: kernels that use them are gated to sm_90 at run time.
#pragma once

#include "shared_address.cuh"

#include <cstdint>

// Every thread of every CTA of the cluster arrives, then waits for all of them; shared-memory
// writes before the barrier are visible to the whole cluster after it.
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

// The address, in the shared memory of the cluster's CTA of rank `rank`, of what `mine` points to in
// this CTA's: the same offset, another SM. An ordinary pointer: loads through it can be issued
// back to back, so many are in flight at once (a read from a neighbour costs about as much as one
// from L2; one at a time, they add up).
template <class T>
__device__ __forceinline__ const T* in_cluster_rank(const T* mine, uint32_t rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint64_t theirs;
    asm("mapa.u64 %0, %1, %2;" : "=l"(theirs) : "l"(mine), "r"(rank));
    return reinterpret_cast<const T*>(theirs);
#else
    return mine;
#endif
}

// This CTA's rank in its cluster (0 to the cluster's size - 1; x varies fastest).
__device__ __forceinline__ uint32_t cluster_rank() {
    uint32_t rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
    return rank;
}

// One arrival on the mbarrier at `bar`'s offset in the shared memory of the cluster's CTA of rank
// `rank` (a consumer telling a neighbour's copy thread that a stage it writes into is free: the
// reads it waited for are done). The arrival's default semantics, a release at the CTA's scope, as
// CUTLASS's cluster barriers use: `.release.cluster` makes every arrival a memory barrier (MEMBAR),
// which on the H200 doubled the time of the kernel that uses this (step 3, LAB_NOTES.md).
__device__ __forceinline__ void arrive_in_cluster_rank(uint64_t* bar, uint32_t rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n\t.reg .b32 remote;\n\tmapa.shared::cluster.u32 remote, %0, %1;\n\t"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(shared_address(bar)),
        "r"(rank)
        : "memory");
#endif
}
