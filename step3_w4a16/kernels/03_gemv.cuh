// 03 GEMV for decoding (M = 1..8): a warp per weight row, 16-byte weight loads, activations
// staged once per CTA in shared memory; for Q4_0, group-128 INT4, and W8 with one scale per row.
//
// Idea: with a handful of tokens every weight is used M times at most, so the kernel is as fast
// as it streams the weights from HBM (4.5 bits each for Q4_0, 4.25 for group-128, 8 for W8).
// The CTA first copies the fp16 activations of all M tokens into shared memory as FP32 (one read
// from L2 per CTA, converted once); then each warp takes one weight row at a time and its lanes
// walk the row 32 weights apart: one warp load is 512 contiguous bytes of nibbles. Lane c reads
// the 32 activations of chunk c, 128 bytes after lane c - 1: all in the same banks, a 32-way
// conflict (the first version of this kernel ran at 470 GB/s because of it). So the eight float4
// of chunk c are stored in the order j ^ (c % 8): eight neighbouring lanes read eight different
// bank groups. The loop is
// software-pipelined (the loads of the next kChunksInFlight chunks are issued before the math on
// the current ones) and weights are read with a streaming hint (used once).
// Nibbles become numbers with the 0x6400 trick (w4a16_layout.cuh): one LOP3 and one HSUB2 give
// two exact codes q - z as fp16, no integer-to-float conversion. Then:
//   Q4_0       Σ (q - 8)·a per 32-block in FP32, times the block's d: exact products;
//   group-128  each weight is fp16((q - z)·s) (one HMUL2 per pair, the format's definition);
//   W8         bytes become 1024 + (q + 128) the same way (a PRMT places each byte under 0x64),
//              Σ q·a over the whole row, one multiply by the row's scale at the very end.
// Limit: per weight and token about 3 FP32-pipe instructions (convert the pair to FP32, FFMA,
// and the shared-memory read of the activation) against 0.5 to 1 byte of HBM traffic: at M = 1
// memory and instruction issue are close, and as M grows the instructions win (see the sweep:
// the tensor-core kernel, 04, takes over). Shared memory limits M·K: M·K·4 bytes must fit.
#pragma once

#include "../../common/errors.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/warp_reduce.cuh"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

#include <string>

namespace gemv {
constexpr int kWarps = 16;          // warps per CTA: few CTAs, so the activations are staged few times
constexpr int kChunksInFlight = 4;  // 32-weight chunks per lane per pipeline stage
constexpr int kChunk = 32;          // weights per lane per chunk
constexpr int kMaxTokens = 8;
}  // namespace gemv

// The 32 staged activations of one chunk: float4 j of chunk c is stored at slot j ^ (c % 8).
struct SwizzledChunk {
    const float4* base;  // the chunk's 8 slots
    int key;             // c % 8
    __device__ float4 operator[](int j) const { return base[j ^ key]; }
};
__device__ __forceinline__ SwizzledChunk staged_chunk(const float4* stage, int token_chunk) {
    return {stage + 8 * token_chunk, token_chunk % 8};
}

// Two fp16 values to FP32 and their dot product with two activations, added to acc.
__device__ __forceinline__ float fma2(__half2 w, float a0, float a1, float acc) {
    const float2 f = __half22float2(w);
    return fmaf(f.y, a1, fmaf(f.x, a0, acc));
}

// Q4_0, repacked: 16 bytes of nibbles and the block's d. Byte j holds elements j (low) and
// j + 16 (high); in word i, the mask 0x000F000F picks bytes 4i and 4i + 2.
struct GemvQ4_0 {
    struct Chunk {
        uint4 q;
        float d;
    };
    __device__ static Chunk load(const W4A16Args& p, int row, int c) {
        const size_t b = (size_t)row * (p.K / QK4_0) + c;
        return {__ldcs(reinterpret_cast<const uint4*>(p.q4_qs) + b), half_bits_to_float(p.q4_d[b])};
    }
    template <class Acts>  // float4 j = activations 4j..4j+3 of the chunk: SwizzledChunk, or registers (05)
    __device__ static float dot(const Chunk& ch, const Acts& a) {
        const __half2 bias = __float2half2_rn(1032.0f);               // 1024 + 8: codes become q - 8
        const uint32_t words[4] = {ch.q.x, ch.q.y, ch.q.z, ch.q.w};
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float4 lo = a[i], hi = a[4 + i];  // elements 4i..4i+3 and 4i+16..4i+19
            sum = fma2(nibbles_to_half2(words[i], bias), lo.x, lo.z, sum);
            sum = fma2(nibbles_to_half2(words[i] >> 4, bias), hi.x, hi.z, sum);
            sum = fma2(nibbles_to_half2(words[i] >> 8, bias), lo.y, lo.w, sum);
            sum = fma2(nibbles_to_half2(words[i] >> 12, bias), hi.y, hi.w, sum);
        }
        return ch.d * sum;
    }
    __device__ static float finish(const W4A16Args&, int, float sum) { return sum; }
};

// Group-128: 4 words of 8 consecutive nibbles (element 8i + j at bits 4j of word i), and the
// group's scale and zero point. The mask picks elements 8i + j and 8i + j + 4.
struct GemvG128 {
    struct Chunk {
        uint4 q;
        __half2 scale, bias;
    };
    __device__ static Chunk load(const W4A16Args& p, int row, int c) {
        const size_t group = (size_t)row * (p.K / kGroupSize) + c / (kGroupSize / gemv::kChunk);
        const __half s = __ushort_as_half(p.g128_s[group]);
        const __half bias = __float2half_rn(1024.0f + (float)p.g128_z[group]);
        return {__ldcs(reinterpret_cast<const uint4*>(p.g128_q) + (size_t)row * (p.K / gemv::kChunk) + c), __half2half2(s),
                __half2half2(bias)};
    }
    template <class Acts>  // float4 j = activations 4j..4j+3 of the chunk: SwizzledChunk, or registers (05)
    __device__ static float dot(const Chunk& ch, const Acts& a) {
        const uint32_t words[4] = {ch.q.x, ch.q.y, ch.q.z, ch.q.w};
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float4 lo = a[2 * i], hi = a[2 * i + 1];  // elements 8i..8i+3 and 8i+4..8i+7
            const float l[4] = {lo.x, lo.y, lo.z, lo.w}, h[4] = {hi.x, hi.y, hi.z, hi.w};
#pragma unroll
            for (int j = 0; j < 4; ++j)
                sum = fma2(__hmul2(nibbles_to_half2(words[i] >> (4 * j), ch.bias), ch.scale), l[j], h[j], sum);
        }
        return sum;
    }
    __device__ static float finish(const W4A16Args&, int, float sum) { return sum; }
};

// W8: 32 int8 weights (two 16-byte loads). A PRMT puts bytes 0 and 1 of a word (after flipping
// their sign bits: q + 128) under 0x64 high bytes: half2(1024 + q0 + 128, 1024 + q1 + 128).
struct GemvW8 {
    struct Chunk {
        uint4 q[2];
    };
    __device__ static Chunk load(const W4A16Args& p, int row, int c) {
        const uint4* w = reinterpret_cast<const uint4*>(p.w8_q + (size_t)row * p.K) + 2 * c;
        return {{__ldcs(w), __ldcs(w + 1)}};
    }
    template <class Acts>  // float4 j = activations 4j..4j+3 of the chunk: SwizzledChunk, or registers (05)
    __device__ static float dot(const Chunk& ch, const Acts& a) {
        const __half2 bias = __float2half2_rn(1152.0f);  // 1024 + 128
        const uint32_t words[8] = {ch.q[0].x, ch.q[0].y, ch.q[0].z, ch.q[0].w, ch.q[1].x, ch.q[1].y, ch.q[1].z, ch.q[1].w};
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const uint32_t u = words[i] ^ 0x80808080u;
            const float4 x = a[i];
            sum = fma2(__hsub2(bits_half2(__byte_perm(u, 0x64646464u, 0x4140)), bias), x.x, x.y, sum);
            sum = fma2(__hsub2(bits_half2(__byte_perm(u, 0x64646464u, 0x4342)), bias), x.z, x.w, sum);
        }
        return sum;
    }
    __device__ static float finish(const W4A16Args& p, int row, float sum) { return half_bits_to_float(p.w8_s[row]) * sum; }
};

template <class Format, int TOKENS>
__global__ void __launch_bounds__(gemv::kWarps * 32) w4a16_gemv(W4A16Args p) {
    using namespace gemv;
    extern __shared__ float4 a_stage[];  // [TOKENS][K] FP32, swizzled per 32-value chunk
    // Stage the activations: 8 fp16 values per 16-byte load, stored as two float4.
    const int eighths = TOKENS * p.K / 8;
    for (int i = threadIdx.x; i < eighths; i += blockDim.x) {
        const uint4 h = __ldg(reinterpret_cast<const uint4*>(p.a_f16) + i);
        const uint32_t pairs[4] = {h.x, h.y, h.z, h.w};
        float f[8];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float2 v = __half22float2(bits_half2(pairs[j]));
            f[2 * j] = v.x, f[2 * j + 1] = v.y;
        }
        const int chunk = i / 4, key = chunk % 8;  // 4 eighths per chunk; float4 j = 2(i % 4) and 2(i % 4) + 1
        a_stage[8 * chunk + ((2 * (i % 4)) ^ key)] = make_float4(f[0], f[1], f[2], f[3]);
        a_stage[8 * chunk + ((2 * (i % 4) + 1) ^ key)] = make_float4(f[4], f[5], f[6], f[7]);
    }
    __syncthreads();

    const int lane = threadIdx.x % 32, chunks = p.K / kChunk;
    for (int row = blockIdx.x * kWarps + threadIdx.x / 32; row < p.N; row += gridDim.x * kWarps) {
        float acc[TOKENS] = {};
        typename Format::Chunk cur[kChunksInFlight], next[kChunksInFlight];
#pragma unroll
        for (int u = 0; u < kChunksInFlight; ++u)
            if (lane + 32 * u < chunks) cur[u] = Format::load(p, row, lane + 32 * u);
        for (int base = lane; base < chunks; base += 32 * kChunksInFlight) {
            // Software pipeline: the next stage's loads are in flight while this stage's math runs.
#pragma unroll
            for (int u = 0; u < kChunksInFlight; ++u) {
                const int c = base + 32 * (kChunksInFlight + u);
                if (c < chunks) next[u] = Format::load(p, row, c);
            }
#pragma unroll
            for (int u = 0; u < kChunksInFlight; ++u) {
                const int c = base + 32 * u;
                if (c >= chunks) break;
#pragma unroll
                for (int t = 0; t < TOKENS; ++t) acc[t] += Format::dot(cur[u], staged_chunk(a_stage, t * chunks + c));
            }
#pragma unroll
            for (int u = 0; u < kChunksInFlight; ++u) cur[u] = next[u];
        }
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) {
            const float sum = warp_reduce_sum(acc[t]);
            if (lane == 0) p.c[(size_t)t * p.N + row] = Format::finish(p, row, sum);
        }
    }
}

inline size_t gemv_smem_bytes(int64_t M, int64_t K) { return (size_t)(M * K) * sizeof(float); }

inline std::string w4a16_gemv_why_not(const GemmCase& c, const Gpu& gpu) {
    const int64_t M = c.M, K = c.K;
    const size_t smem_per_block = gpu.smem_per_block_optin;
    if (M > gemv::kMaxTokens) return "GEMV: needs M <= " + std::to_string(gemv::kMaxTokens);
    if (gemv_smem_bytes(M, K) > smem_per_block)
        return "GEMV: M*K*4 = " + std::to_string(gemv_smem_bytes(M, K) / 1024) + " KB of staged activations, the GPU allows " +
               std::to_string(smem_per_block / 1024) + " KB per CTA";
    return "";
}

// As many CTAs as fit on the GPU at once, at most one warp per row.
template <class Format, int TOKENS>
inline void launch_gemv_tokens(const W4A16Args& p, cudaStream_t s) {
    using namespace gemv;
    const size_t smem = gemv_smem_bytes(TOKENS, p.K);
    auto kernel = w4a16_gemv<Format, TOKENS>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int64_t grid = std::min<int64_t>(ceil_div(p.N, kWarps), ctas_in_one_wave(kernel, kWarps * 32, smem));
    kernel<<<(unsigned)grid, kWarps * 32, smem, s>>>(p);
}

template <class Format>
inline void launch_w4a16_gemv(const W4A16Args& p, cudaStream_t s) {
    with_count_up_to<gemv::kMaxTokens>(p.M, [&](auto tokens) { launch_gemv_tokens<Format, decltype(tokens)::value>(p, s); });
}
