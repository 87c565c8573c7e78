// canaries.cuh - deliberately wrong GPU quantizers. A test runs each by name and passes only if
// step2_quant's byte checks reject it; they never run unless named with --kernel.
//   canary_q8_1_skip_last_block  quantizes all but the last 32-block: an off-by-one bound
//   canary_q8_0_skip_minus_one   stores no code equal to -1: those bytes keep the poison. Poison
//                                0xFF *is* -1, so only the pattern 0x00 exposes it ...
//   canary_q8_0_skip_zero        ... and this one, which stores no code equal to 0, only 0xFF:
//                                the reason every byte check runs under two patterns.
#pragma once

#include "../common/ggml_quants_gpu.cuh"

inline void launch_canary_q8_1_skip_last_block(const float* x, void* y, int64_t n, cudaStream_t s) {
    if (n > QK8_1) quantize_q8_1_gpu(x, static_cast<block_q8_1*>(y), n - QK8_1, Q81Sum::DTimesSumQ, s);
}

// Q8_0, except that codes equal to SKIPPED are never stored.
template <int8_t SKIPPED>
__global__ void __launch_bounds__(quant_gpu::kThreads)
    canary_q8_0_skip_code_kernel(const float* __restrict__ x, block_q8_0* __restrict__ y, int64_t nblocks) {
    for_each_block(x, nblocks, [&](int64_t b, int part, bool in, float4 v) {
        const LaneQ8 lane = quantize_lane_q8<false>(v);
        if (!in) return;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int8_t q = (int8_t)(lane.packed_q >> (8 * j));
            if (q != SKIPPED) y[b].qs[4 * part + j] = q;
        }
        if (part == 0) y[b].d = fp32_to_fp16(lane.d);
    });
}

template <int8_t SKIPPED>
inline void launch_canary_q8_0_skip_code(const float* x, void* y, int64_t n, cudaStream_t s) {
    canary_q8_0_skip_code_kernel<SKIPPED>
        <<<quantize_grid(n), quant_gpu::kThreads, 0, s>>>(x, static_cast<block_q8_0*>(y), n / QK8_0);
}
