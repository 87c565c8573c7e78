// warp_reduce.cuh - device helpers for adding up values across the 32 lanes of a warp.
#pragma once

// Every lane ends with the sum of all 32 lanes' v (a butterfly of xor shuffles).
__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}
