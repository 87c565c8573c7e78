// 08 GEMV with asynchronous copies (sm_80 cp.async, launched with PDL on sm_90): bytes in flight
// without registers. An experiment that did not pay, kept because its numbers teach.
//
// Idea: 06/07 keep their loads in flight in registers, and registers are what limits them: at
// 64 per thread, only a quarter hold weights on their way, about 64 KB per SM, and a row of
// K = 14336 is consumed in four short stages. cp.async copies 16 bytes from global to shared
// memory without passing through a register: a lane issues the copies of kChunk blocks at once
// and waits only when it needs them. Each warp owns one weight row and a two-chunk ring in shared
// memory; while it computes on one chunk, the next is on its way. With 4 warps per CTA and 8 CTAs
// per SM, about 224 KB per SM can be in flight, three times 07. Scales (2 bytes a block) still
// come through registers, a chunk's 7 issued together before the wait for the chunk (one by one
// inside the loop, each cost a memory latency, and that first version was slower still).
// Launched with PDL like 07: the first copies go out before the quantizer ends.
// Measured: slower than 07 on the H200 at M = 1 and M = 4 (the table shows by how much): the
// extra bytes in flight did not become bandwidth. Why is not established yet; the next step is
// a profile (achieved occupancy and shared-memory carveout, stall reasons, DRAM throughput over
// time) rather than a guess. One row per warp also loads every activation block once per row.
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/launch.h"
#include "../../common/pdl.cuh"
#include "../../common/q4_0_q8_1.h"
#include "../../common/warp_reduce.cuh"
#include "../w4a8_layout.cuh"

namespace gemv_async {
constexpr int kWarps = 4;   // warps (= weight rows) per CTA
constexpr int kChunk = 7;   // blocks per lane per copy stage: a warp's stage is 7 x 32 x 16 B = 3.5 KB
constexpr int kStages = 2;  // chunks in the ring
}  // namespace gemv_async

template <int TOKENS>
__global__ void __launch_bounds__(gemv_async::kWarps * 32) w4a8_gemv_async(W4A8Args p) {
    using namespace gemv_async;
    __shared__ __align__(16) uint4 ring[kWarps][kStages][kChunk][32];  // [warp][stage][block][lane]
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = blockIdx.x * kWarps + warp;
    const int nblocks = p.K / QK4_0;
    const int nchunks = (nblocks + 32 * kChunk - 1) / (32 * kChunk);
    const uint4* wq = reinterpret_cast<const uint4*>(p.w_qs) + (size_t)min(row, p.N - 1) * nblocks;
    const ggml_half* wd = p.w_d + (size_t)min(row, p.N - 1) * nblocks;
    // Chunk c holds blocks c*32*kChunk + u*32 + lane, u < kChunk: each lane copies its own blocks
    // and later reads only those, so a __syncwarp is the only ordering needed.
    auto issue_chunk = [&](int c) {
        if (c < nchunks && row < p.N)
#pragma unroll
            for (int u = 0; u < kChunk; ++u) {
                const int b = c * 32 * kChunk + u * 32 + lane;
                if (b < nblocks) copy_16_async(&ring[warp][c % kStages][u][lane], wq + b);
            }
        commit_copies();  // an empty group keeps the wait counts uniform
    };
    issue_chunk(0);
    issue_chunk(1);
    wait_for_prerequisite_grids();  // the quantized activations are ready from here on
    if (row >= p.N) return;

    float acc[TOKENS] = {};
    for (int c = 0; c < nchunks; ++c) {
        float d_w[kChunk];  // the chunk's scales, all 7 loads issued together, before the wait
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
            const int b = c * 32 * kChunk + u * 32 + lane;
            d_w[u] = b < nblocks ? half_bits_to_float(wd[b]) : 0.f;
        }
        wait_copies<kStages - 1>();  // chunk c has landed (chunk c+1 may still be in flight)
        __syncwarp();
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
            const int b = c * 32 * kChunk + u * 32 + lane;
            if (b >= nblocks) break;
            const uint4 w = ring[warp][c % kStages][u][lane];
            const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int t = 0; t < TOKENS; ++t) {
                const uint4* aq = reinterpret_cast<const uint4*>(p.a_qs + ((size_t)t * nblocks + b) * QK8_1);
                const uint4 a_lo = __ldg(aq), a_hi = __ldg(aq + 1);
                const uint32_t a_words[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
                const uint32_t ds_bits = __ldg(p.a_ds + (size_t)t * nblocks + b);
                const float2 ds = __half22float2(*reinterpret_cast<const __half2*>(&ds_bits));
                int sumi = 0;
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    sumi = dp4a_s8(low_nibbles(words[i]), a_words[i], sumi);
                    sumi = dp4a_s8(high_nibbles(words[i]), a_words[i + 4], sumi);
                }
                acc[t] = fmaf(d_w[u], fmaf(ds.x, (float)sumi, -8.0f * ds.y), acc[t]);
            }
        }
        __syncwarp();        // every lane is done with this stage before it is refilled
        issue_chunk(c + kStages);
    }
#pragma unroll
    for (int t = 0; t < TOKENS; ++t) {
        const float sum = warp_reduce_sum(acc[t]);
        if (lane == 0) p.c[(size_t)t * p.N + row] = sum;
    }
}

template <int TOKENS>
inline void launch_gemv_async_tokens(const W4A8Args& p, cudaStream_t s) {
    launch_with_pdl(w4a8_gemv_async<TOKENS>, dim3((unsigned)ceil_div(p.N, gemv_async::kWarps)), dim3(gemv_async::kWarps * 32), 0,
                    s, p);
}

inline void launch_w4a8_gemv_async(const W4A8Args& p, cudaStream_t s) {
    switch (p.M) {
        case 1: launch_gemv_async_tokens<1>(p, s); break;
        case 2: launch_gemv_async_tokens<2>(p, s); break;
        case 3: launch_gemv_async_tokens<3>(p, s); break;
        case 4: launch_gemv_async_tokens<4>(p, s); break;
        case 5: launch_gemv_async_tokens<5>(p, s); break;
        case 6: launch_gemv_async_tokens<6>(p, s); break;
        case 7: launch_gemv_async_tokens<7>(p, s); break;
        default: launch_gemv_async_tokens<8>(p, s); break;
    }
}
