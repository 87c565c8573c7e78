// 06 Tensor cores for decoding (M = 1..8): repacked 4-bit weights go straight from HBM into mma
// fragments; the tokens are the 8 columns of m16n8k16. For Q4_0 and for group-128.
//
// Idea: 03 and 05 spend, per weight and token, a conversion to FP32 and an FFMA on the regular
// cores: their cost grows with M and is several instructions per weight even at M = 1. 04 hands
// the products to the tensor cores, but copies every weight through shared memory and meets at a
// barrier per stage, though decoding uses each weight once. Here (common/gemv_mma.cuh, the
// skeleton step 4's rung 10 also uses) a lane loads its 16-byte piece of a repacked stream (a
// 16-row tile, 64 values of K, in 04's fragment order) into registers, turns the nibbles into
// fp16 with the 0x6400 trick and feeds four mma.sync m16n8k16, whose FP32 accumulators add the
// products: no conversion and no FFMA per weight. Group-128: 04's dequantization, fp16((q - z)·s)
// (LOP3, HSUB2 or HFMA2, HMUL2: the high nibbles need no shift, w4a16_layout.cuh), the format's
// own weights. Q4_0: the exact codes q - 8 (LOP3, HSUB2 or HFMA2), one
// block (two mma) summed apart and scaled by its d in FP32, as 03 does: 4 FFMA per block and lane.
// A CTA spans K: warp w stages its slice of every token's fp16 activations in shared memory once
// and reads them with ldmatrix; the CTA's 16-row tiles stream past.
// Improves: per 16 rows x 16 values of K a dozen or so instructions, one ldmatrix and one mma for
// all M tokens: fewer instructions than 03 at M = 1, and flat in M.
// Limit: the mma and the dequantization cost the same at M = 1 as at M = 8; as in step 4's rung
// 10, one CTA of 16 warps per SM and each warp's chain of loads, dequantization and mma. The
// staged fp16 activations cap M·K (at M = 8, K <= 12288). K a multiple of 64 (128 for group-128).
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gemv_mma.cuh"
#include "../../common/gpu.cuh"
#include "../../common/mma.cuh"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

namespace gemv_mma_w4a16 {

static_assert(kMmaChunkK == gemv_mma::kChunkK && kMmaRows == gemv_mma::kTileRows, "04's layout is the skeleton's chunk and tile");
static_assert(kGroupSize == 2 * kMmaChunkK, "a group is two chunks: a lane's scale index is its chunk / 2");
static_assert(QK4_0 == 2 * kMmaK, "a Q4_0 block is two K-steps");

// A warp's staged fp16 activations, shared by both formats: its slice of every token, rows of
// max_chunks·64 values + kRowPad bytes (ldmatrix rows then fall in different banks).
struct F16SliceActs : GemvMmaNoFold {
    static constexpr int kRowPad = 16;
    __host__ __device__ static int row_stride(int max_chunks) { return max_chunks * kMmaChunkK * 2 + kRowPad; }
    __host__ __device__ static int bytes(int tokens, int max_chunks) { return tokens * row_stride(max_chunks); }

    const uint8_t* row;  // this lane's ldmatrix row at chunk 0

    template <int TOKENS>
    __device__ static void stage(uint8_t* mine, const W4A16Args& p, int max_chunks, Slice s) {
        gemv_mma_stage_rows<TOKENS>(mine, row_stride(max_chunks), reinterpret_cast<const uint8_t*>(p.a_f16),
                                    (size_t)p.K * sizeof(__half), kMmaChunkK * (int)sizeof(__half), s);
        wait_copies<0>();
        __syncwarp();
    }

    // ldmatrix rows: lanes 0-7 give tokens 0-7 (clamped to M - 1) at values 0-7 of a K-step, lanes 8-15 at 8-15.
    template <int TOKENS>
    __device__ F16SliceActs(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>) {
        const int lane = threadIdx.x % 32;
        row = mine + min(lane % 8, TOKENS - 1) * row_stride(max_chunks) + ((lane / 8) % 2) * 16;
    }

    // The B fragment of K-step ks of chunk j: 16 values of K x 8 tokens.
    __device__ __forceinline__ void b_fragment(uint32_t (&b)[2], int j, int ks) const {
        ldmatrix_x2(b, row + j * kMmaChunkK * 2 + ks * kMmaK * 2);
    }
};

__device__ __forceinline__ uint32_t word_of(const uint4& q, int ks) { return ks == 0 ? q.x : ks == 1 ? q.y : ks == 2 ? q.z : q.w; }

struct MmaG128W4A16 {
    using Args = W4A16Args;

    // One lane's 16-byte piece of a tile's chunk (4 K-steps) and its group's (s, 1024 + z) pairs
    // for rows g and g + 8.
    struct Piece {
        uint4 q;
        uint2 sz;
    };

    // The pieces of a warp's slice, kTilesPerItem neighbouring tiles at a time.
    struct Stream {
        const uint4* q;          // this lane's 16 bytes of the next chunk of the group's first tile
        const uint2* sz_tile;    // this lane's scale pair of group 0 of that tile
        int chunk, first, end;   // the next chunk (of K); the slice is [first, end)
        int first_tile, row_tiles, tiles;  // the group's first tile; how many of its tiles exist
        size_t q_tile, sz_stride;  // from one tile to the next
        size_t q_skip, sz_skip;  // from past the slice's end in one group to its start in the next
        __device__ Stream(const Args& p, Slice s) : chunk(s.first), first(s.first), end(s.first + s.count) {
            const int lane = threadIdx.x % 32, chunks = p.K / kMmaChunkK, groups = p.K / kGroupSize;
            const int step = gridDim.x * gemv_mma::kTilesPerItem;
            first_tile = blockIdx.x * gemv_mma::kTilesPerItem, row_tiles = (p.N + kMmaRows - 1) / kMmaRows;
            tiles = gemv_mma_tiles_in_group(first_tile, row_tiles);
            q = reinterpret_cast<const uint4*>(p.mma_words) + ((size_t)first_tile * chunks + s.first) * 32 + lane;
            sz_tile = reinterpret_cast<const uint2*>(p.mma_scales) + (size_t)first_tile * groups * 8 + lane / 4;
            q_tile = (size_t)chunks * 32, sz_stride = (size_t)groups * 8;
            q_skip = ((size_t)step * chunks - s.count) * 32;
            sz_skip = (size_t)step * groups * 8;
        }
        __device__ __forceinline__ void load(Piece (&w)[gemv_mma::kTilesPerItem]) {
#pragma unroll
            for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                const int tt = t < tiles ? t : 0;  // a tile past the matrix: the group's first again
                w[t].q = __ldcs(q + tt * q_tile), w[t].sz = __ldcs(sz_tile + tt * sz_stride + (chunk / 2) * 8);
            }
            q += 32;
            if (++chunk == end) {
                chunk = first, q += q_skip, sz_tile += sz_skip;
                first_tile += gridDim.x * gemv_mma::kTilesPerItem, tiles = gemv_mma_tiles_in_group(first_tile, row_tiles);
            }
        }
    };

    __host__ __device__ static int act_bytes(int tokens, int max_chunks) { return F16SliceActs::bytes(tokens, max_chunks); }

    struct Acts : F16SliceActs {
        using F16SliceActs::F16SliceActs;

        // The four K-steps of chunk j: per K-step the activations once (ldmatrix), then for each
        // tile the dequantization (g128_a_fragment) and one mma.
        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            __half2 s_lo[gemv_mma::kTilesPerItem], s_hi[gemv_mma::kTilesPerItem], z_lo[gemv_mma::kTilesPerItem],
                z16_hi[gemv_mma::kTilesPerItem];
#pragma unroll
            for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                const __half2 s = bits_half2(w[t].sz.x), z = bits_half2(w[t].sz.y);  // (row g, row g + 8)
                s_lo[t] = __low2half2(s), s_hi[t] = __high2half2(s), z_lo[t] = __low2half2(z);
                z16_hi[t] = high_nibble_bias(__high2half2(z));
            }
#pragma unroll
            for (int ks = 0; ks < kKStepsPerLoad; ++ks) {
                uint32_t b[2];
                b_fragment(b, j, ks);
#pragma unroll
                for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                    uint32_t a[4];
                    g128_a_fragment(a, word_of(w[t].q, ks), s_lo[t], s_hi[t], z_lo[t], z16_hi[t]);
                    mma_m16n8k16_f16_f32(acc[t], a, b);
                }
            }
        }
    };
};

struct MmaQ4_0W4A16 {
    using Args = W4A16Args;
    // Q4_0 repacked for m16n8k16 (w4a16_formats.h): 16 bytes of nibbles and one scale word per (tile, block, g).
    using Piece = BlockScalePiece;
    struct Stream : BlockScaleStream {
        __device__ Stream(const Args& p, Slice s) : BlockScaleStream(p.q4_mma_words, p.q4_mma_scales, p.N, p.K, s) {}
    };

    __host__ __device__ static int act_bytes(int tokens, int max_chunks) { return F16SliceActs::bytes(tokens, max_chunks); }

    struct Acts : F16SliceActs {
        using F16SliceActs::F16SliceActs;

        // The two blocks of chunk j: per block, two K-steps of exact codes q - 8 into a fresh
        // accumulator (the activations read once per K-step for every tile), then d times it into acc.
        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            const __half2 bias = __float2half2_rn(1032.0f);  // 1024 + 8: codes become q - 8
            const __half2 bias16 = high_nibble_bias(bias);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float block_sum[gemv_mma::kTilesPerItem][4] = {};
#pragma unroll
                for (int kk = 0; kk < 2; ++kk) {
                    const int ks = 2 * h + kk;
                    uint32_t b[2];
                    b_fragment(b, j, ks);
#pragma unroll
                    for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                        const uint32_t word = word_of(w[t].q, ks), word8 = word >> 8;
                        const uint32_t a[4] = {half2_bits(nibbles_to_half2(word, bias)), half2_bits(high_nibbles_to_half2(word, bias16)),
                                               half2_bits(nibbles_to_half2(word8, bias)),
                                               half2_bits(high_nibbles_to_half2(word8, bias16))};
                        mma_m16n8k16_f16_f32(block_sum[t], a, b);
                    }
                }
#pragma unroll
                for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                    const float2 d = __half22float2(bits_half2(w[t].d[h]));  // rows g and g + 8
                    acc[t][0] = fmaf(block_sum[t][0], d.x, acc[t][0]);
                    acc[t][1] = fmaf(block_sum[t][1], d.x, acc[t][1]);
                    acc[t][2] = fmaf(block_sum[t][2], d.y, acc[t][2]);
                    acc[t][3] = fmaf(block_sum[t][3], d.y, acc[t][3]);
                }
            }
        }
    };
};

}  // namespace gemv_mma_w4a16

inline std::string w4a16_gemv_mma_why_not(const GemmCase& c, const Gpu& gpu) {
    using namespace gemv_mma_w4a16;
    return gemv_mma_why_not<MmaG128W4A16>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a16_gemv_mma(const W4A16Args& p, cudaStream_t s) { launch_gemv_mma<gemv_mma_w4a16::MmaG128W4A16>(p, s); }

inline std::string w4a16_gemv_mma_q4_0_why_not(const GemmCase& c, const Gpu& gpu) {
    using namespace gemv_mma_w4a16;
    if (c.K % kMmaChunkK != 0) return "tensor-core GEMV: K must be a multiple of " + std::to_string(kMmaChunkK) + " (the repacked layout)";
    return gemv_mma_why_not<MmaQ4_0W4A16>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a16_gemv_mma_q4_0(const W4A16Args& p, cudaStream_t s) { launch_gemv_mma<gemv_mma_w4a16::MmaQ4_0W4A16>(p, s); }
