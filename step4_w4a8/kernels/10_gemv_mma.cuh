// 10 Tensor cores for decoding: 09's fragments without its shared-memory tiles. The weights go
// straight from HBM into mma fragments; the (at most 8) tokens are the mma's 8 columns.
//
// Idea: 08 spends DP4A, shuffles and registers per token, so its cost grows with M; 09's mma
// does 8 tokens for the price of one, but copies every weight into shared memory first and waits
// at a barrier per stage, though each weight is used exactly once. Here a lane loads its 16-byte
// piece of 09's repacked weights (two blocks of a 16-row tile) into registers and hands it to
// the mma directly. A CTA spans K: warp w owns a slice of K, copies that slice of every token's
// codes and scales into its own corner of shared memory once (after the PDL wait), and then the
// CTA's 16-row tiles stream past: for each, the warp does its slice (a ring of kInFlight 16-byte
// loads ahead, crossing tile boundaries), and the warps add their partial tiles in shared
// memory, one __syncthreads per tile. CTAs are persistent, as in 08.
// Improves: per 16 rows x 32 values of K one mma and one epilogue for all M tokens, and no copy
// through shared memory: the instruction count no longer grows with M.
// Limit: the mma and its epilogue cost the same at M = 1 as at M = 8 (08 is faster at M = 1);
// with one CTA of 16 warps per SM (registers) the schedulers issue on about half the cycles,
// waiting on loads and on each warp's chain of mma, convert and FMA (README.md, rung 10's
// profile). The activations of a slice must fit in shared memory (K = 16384 at M = 8 takes
// 162 KB); K a multiple of 64 (the repacked layout).
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/gemv_mma.cuh"
#include "../../common/mma.cuh"
#include "../w4a8_layout.cuh"
#include "../w4a8_mma_layout.h"

static_assert(kMmaChunk8 == gemv_mma::kChunkK && kMmaRows8 == gemv_mma::kTileRows, "09's layout is the skeleton's chunk and tile");

// int8_from_high_nibbles (w4a8_mma_layout.h) as one instruction: (w & 0xF0F0F0F0) ^ sign, with
// sign = 0x80808080 in a register. Written as C++, the compiler keeps both constants as immediates
// and, since a LOP3 takes one, spends two.
__device__ __forceinline__ uint32_t high_nibbles_to_int8(uint32_t w, uint32_t sign) {
    uint32_t r;
    asm("lop3.b32 %0, %1, 0xF0F0F0F0, %2, 0x6A;" : "=r"(r) : "r"(w), "r"(sign));  // 0x6A: (a & b) ^ c
    return r;
}

struct MmaQ4_0Q8_1 {
    using Args = W4A8Args;
    static constexpr int kRowPad = 16;  // bytes after each token's codes: ldmatrix rows fall in different banks

    // 09's layout: 16 bytes of nibbles and one scale word per (tile, block, g).
    using Piece = BlockScalePiece;
    struct Stream : BlockScaleStream {
        __device__ Stream(const Args& p, Slice s) : BlockScaleStream(p.mma_words, p.mma_scales, p.N, p.K, s) {}
    };

    // A warp's staged activations: the codes of its slice for every token (rows of
    // max_chunks·64 + kRowPad bytes), then d_a / 16 of 8 tokens per block (token t >= M repeats M - 1).
    __host__ __device__ static int code_stride(int max_chunks) { return max_chunks * kMmaChunk8 + kRowPad; }
    __host__ __device__ static int act_bytes(int tokens, int max_chunks) {
        return tokens * code_stride(max_chunks) + max_chunks * kBlocksPerLoad * gemv_mma::kMaxTokens * 4;
    }

    struct Acts {
        const uint8_t* codes;  // this lane's ldmatrix row at chunk 0
        const float* da;       // d_a / 16 of tokens 2t, 2t + 1 at block 0

        // Codes with cp.async; d_a / 16 as FP32 (the 1/16 undoes the weights' 16·(n - 8)), kBatch
        // independent loads per lane at once (a loop of load-then-store would wait for L2 per element).
        template <int TOKENS>
        __device__ static void stage(uint8_t* mine, const Args& p, int max_chunks, Slice s) {
            constexpr int kBatch = 8;
            const int lane = threadIdx.x % 32, pieces = s.count * (kMmaChunk8 / 16), k0 = s.first * kMmaChunk8;
            for (int i = lane; i < TOKENS * pieces; i += 32) {
                const int token = i / pieces, piece = i % pieces;
                copy_16_async(mine + token * code_stride(max_chunks) + piece * 16, p.a_qs + (size_t)token * p.K + k0 + piece * 16);
            }
            commit_copies();
            float* da = reinterpret_cast<float*>(mine + TOKENS * code_stride(max_chunks));
            const int entries = s.count * kBlocksPerLoad * gemv_mma::kMaxTokens, b0 = s.first * kBlocksPerLoad;
            for (int base = lane; base < entries; base += 32 * kBatch) {
                uint32_t ds[kBatch];
#pragma unroll
                for (int u = 0; u < kBatch; ++u) {
                    const int i = base + 32 * u, b = i / gemv_mma::kMaxTokens, token = min(i % gemv_mma::kMaxTokens, TOKENS - 1);
                    if (i < entries) ds[u] = p.a_ds[(size_t)token * (p.K / QK4_0) + b0 + b];
                }
#pragma unroll
                for (int u = 0; u < kBatch; ++u)
                    if (base + 32 * u < entries) da[base + 32 * u] = __low2float(bits_half2(ds[u])) * 0.0625f;
            }
            wait_copies<0>();
            __syncwarp();
        }

        // ldmatrix rows: lanes 0-7 give tokens 0-7 (clamped to M - 1) at codes 0-15 of a block, lanes 8-15 at 16-31.
        template <int TOKENS>
        __device__ Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>) {
            const int lane = threadIdx.x % 32;
            codes = mine + min(lane % 8, TOKENS - 1) * code_stride(max_chunks) + ((lane / 8) % 2) * 16;
            da = reinterpret_cast<const float*>(mine + TOKENS * code_stride(max_chunks)) + 2 * (lane % 4);
        }

        // The two blocks of chunk j: per block the activations once (ldmatrix, d_a), then for each
        // tile: unpack the nibbles, one mma for all tokens, scale.
        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            const uint32_t sign = 0x80808080u;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int block = kBlocksPerLoad * j + h;  // within the slice
                uint32_t b[2];
                ldmatrix_x2(b, codes + block * QK4_0);
                const float2 d_a = *reinterpret_cast<const float2*>(da + block * gemv_mma::kMaxTokens);  // tokens 2t, 2t + 1
#pragma unroll
                for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                    const uint32_t word_a = h == 0 ? w[t].q.x : w[t].q.z, word_b = h == 0 ? w[t].q.y : w[t].q.w;
                    const uint32_t a[4] = {high_nibbles_to_int8(word_a, sign), high_nibbles_to_int8(word_b, sign),
                                           high_nibbles_to_int8(word_a << 4, sign), high_nibbles_to_int8(word_b << 4, sign)};
                    int c[4] = {0, 0, 0, 0};
                    mma_m16n8k32_s8_s32(c, a, b);
                    const float2 dw = __half22float2(bits_half2(w[t].d[h]));  // rows g and g + 8
                    acc[t][0] = fmaf((float)c[0], dw.x * d_a.x, acc[t][0]);
                    acc[t][1] = fmaf((float)c[1], dw.x * d_a.y, acc[t][1]);
                    acc[t][2] = fmaf((float)c[2], dw.y * d_a.x, acc[t][2]);
                    acc[t][3] = fmaf((float)c[3], dw.y * d_a.y, acc[t][3]);
                }
            }
        }
    };
};

inline std::string w4a8_gemv_mma_why_not(int64_t M, int64_t K) { return gemv_mma_why_not<MmaQ4_0Q8_1>(M, K); }
inline void launch_w4a8_gemv_mma(const W4A8Args& p, cudaStream_t s) { launch_gemv_mma<MmaQ4_0Q8_1>(p, s); }
