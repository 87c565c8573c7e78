// Solution of exercise 1 (step 2): Q8_0, one warp per block (exercises/ex1_q8_0_warp.cuh).
// The maximum of |x| does not depend on the order it is taken in, so a butterfly gives the
// CPU's amax exactly; the rest is the CPU's own functions, so the bytes are ggml's. Like the
// CPU's loop, which starts at 0 and uses fmaxf, every lane starts from fmaxf(0, |x|): a NaN
// never becomes the maximum, not even in a block of NaNs.
#pragma once

#include "../../../common/ggml_quants.h"
#include "../../../common/launch.h"
#include "../ex1_q8_0_warp.cuh"

__global__ void __launch_bounds__(kEx1Threads) quantize_q8_0_ex1_solution(const float* x, block_q8_0* y, int64_t nblocks) {
    const int64_t b = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (b >= nblocks) return;  // the whole warp leaves together
    const float v = x[b * 32 + lane];
    float amax = fmaxf(0.f, fabsf(v));
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, offset));
    const float d = q8_scale(amax), id = inverse_or_zero(d);
    y[b].qs[lane] = q8_value(v, id);
    if (lane == 0) y[b].d = fp32_to_fp16(d);
}

inline void launch_quantize_q8_0_ex1_solution(const float* x, void* y, int64_t n, cudaStream_t s) {
    const int64_t nblocks = n / 32;
    quantize_q8_0_ex1_solution<<<(unsigned)ceil_div(nblocks, kEx1Threads / 32), kEx1Threads, 0, s>>>(
        x, static_cast<block_q8_0*>(y), nblocks);
}
