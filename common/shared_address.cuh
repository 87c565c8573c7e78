// shared_address.cuh - the 32-bit shared-memory address of a generic pointer into shared memory:
// what PTX instructions that name shared memory (cp.async, ldmatrix, mbarrier, TMA) take.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ uint32_t shared_address(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
