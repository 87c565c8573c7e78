// Solution of exercise 2 (step 2): Q4_0, one warp per block, ggml's tie rule
// (exercises/ex2_q4_0_warp.cuh).
#pragma once

#include "../../../common/ggml_quants.h"
#include "../../../common/launch.h"
#include "../ex2_q4_0_warp.cuh"

__global__ void __launch_bounds__(kEx2Threads) quantize_q4_0_ex2_solution(const float* x, block_q4_0* y, int64_t nblocks) {
    const int64_t b = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (b >= nblocks) return;
    const float v = x[b * 32 + lane];
    // This lane's offer, as ggml's loop sees it: only |x| > 0 can ever replace the starting 0.
    float best = fabsf(v) > 0.f ? fabsf(v) : 0.f;
    int where = lane;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        const float other = __shfl_xor_sync(0xffffffffu, best, offset);
        const int other_where = __shfl_xor_sync(0xffffffffu, where, offset);
        if (other > best || (other == best && other_where < where)) best = other, where = other_where;
    }
    const float winner = __shfl_sync(0xffffffffu, v, where);
    const float signed_max = best > 0.f ? winner : 0.f;
    const float d = q4_0_scale(signed_max), id = inverse_or_zero(d);
    const float high = __shfl_down_sync(0xffffffffu, v, 16);  // lane j < 16: value j + 16
    if (lane < 16) y[b].qs[lane] = (uint8_t)(q4_0_nibble(v, id) | q4_0_nibble(high, id) << 4);
    if (lane == 0) y[b].d = fp32_to_fp16(d);
}

inline void launch_quantize_q4_0_ex2_solution(const float* x, void* y, int64_t n, cudaStream_t s) {
    const int64_t nblocks = n / 32;
    quantize_q4_0_ex2_solution<<<(unsigned)ceil_div(nblocks, kEx2Threads / 32), kEx2Threads, 0, s>>>(
        x, static_cast<block_q4_0*>(y), nblocks);
}
