// 03 DP4A: 01's thread per output, with four multiply-adds per instruction.
//
// Idea: __dp4a(a, b, c) adds the four products of a's and b's signed bytes to c in one
// instruction. One 32-bit word of a Q4_0 block's nibbles holds elements j..j+3 (low nibbles)
// and j+16..j+19 (high nibbles): masking with 0x0F0F0F0F, and shifting by 4 first, lays them out
// as four unsigned bytes 0..15 each, ready for DP4A against the activation words j and j+16. No
// "-8" per value: the block's s takes care of it. A block costs 8 DP4A, 4 masks and 4 shifts
// instead of 32 multiply-adds and their unpacking.
// Limit: the nibbles sit at offset 2 of 18-byte blocks, so each 4-byte word takes two 2-byte
// loads, and every thread still reads its weight row straight from memory for each output.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../w4a8_layout.cuh"

namespace dp4a {

constexpr int kDp4aThreads = 128;

__global__ void __launch_bounds__(kDp4aThreads) w4a8_dp4a(W4A8Args p) {
    const int n = blockIdx.x * kDp4aThreads + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.w_blocks + (size_t)n * nblocks;
    const block_q8_1* a = p.a + (size_t)m * nblocks;
    float acc = 0.f;
    for (int b = 0; b < nblocks; ++b) {
        const uint32_t* aq = reinterpret_cast<const uint32_t*>(a[b].qs);  // 4-byte aligned in a 36-byte block
        int sumi = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const uint32_t packed = load_u32_2_aligned(w[b].qs + 4 * i);
            sumi = dp4a_s8(low_nibbles(packed), aq[i], sumi);       // elements 4i..4i+3
            sumi = dp4a_s8(high_nibbles(packed), aq[i + 4], sumi);  // elements 16+4i..16+4i+3
        }
        const float2 ds = q8_1_scales(a[b]);
        acc += half_bits_to_float(w[b].d) * (ds.x * (float)sumi - 8.0f * ds.y);
    }
    p.c[(size_t)m * p.N + n] = acc;
}

}  // namespace dp4a

inline std::string w4a8_dp4a_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', c.M); }

inline void launch_w4a8_dp4a(const W4A8Args& p, cudaStream_t s) {
    using namespace dp4a;
    const dim3 grid((unsigned)ceil_div(p.N, kDp4aThreads), (unsigned)p.M);
    w4a8_dp4a<<<grid, kDp4aThreads, 0, s>>>(p);
}
