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
// memory, one barrier per tile. CTAs are persistent, as in 08.
// Improves: per 16 rows x 32 values of K one mma and one epilogue for all M tokens, and no copy
// through shared memory: the instruction count no longer grows with M.
// Limit: the mma and its epilogue cost the same at M = 1 as at M = 8 (08 is faster at M = 1);
// with one CTA of 16 warps per SM (registers) the schedulers issue on about half the cycles,
// waiting on loads and on each warp's chain of mma, convert and FMA (TENSOR_CORES.md, rung 10's
// profile). The activations of a slice must fit in shared memory (K = 16384 at M = 8 takes
// 162 KB); K a multiple of 64 (the repacked layout).
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gemv_mma.cuh"
#include "../../common/gpu.cuh"
#include "../../common/mma.cuh"
#include "../w4a8_layout.cuh"
#include "../w4a8_mma_layout.h"

namespace gemv_mma_w4a8 {

static_assert(kMmaChunk8 == gemv_mma::kChunkK && kMmaRows8 == gemv_mma::kTileRows, "09's layout is the skeleton's chunk and tile");

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

    struct Acts : GemvMmaNoFold {
        const uint8_t* codes;  // this lane's ldmatrix row at chunk 0
        const float* da;       // d_a / 16 of tokens 2t, 2t + 1 at block 0

        // Codes with cp.async; d_a / 16 as FP32 (the 1/16 undoes the weights' 16·(n - 8)).
        template <int TOKENS>
        __device__ static void stage(uint8_t* mine, const Args& p, int max_chunks, Slice s) {
            gemv_mma_stage_codes_and_scales<TOKENS, float>(mine, code_stride(max_chunks), p.a_qs, p.a_ds, p.K, s,
                                                           [](uint32_t ds) { return __low2float(bits_half2(ds)) * 0.0625f; });
        }

        template <int TOKENS>
        __device__ Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>) {
            const int lane = threadIdx.x % 32;
            codes = gemv_mma_token_row<TOKENS>(mine, code_stride(max_chunks));
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

constexpr int kPairTokens = 4;  // an mma's 8 columns: 4 tokens of each of two blocks

// What the Acts of every block-pair format (below; rung 14's Q4_K pairs too) share, over a format
// Base that stages one block per mma (MmaQ4_0Q8_1 here): Base's staged activations, then a zero row
// of 32 bytes (B where a column's block is not; both halves of a block, as a real row has); this
// lane's ldmatrix row: matrix 0 (lanes 0-7) is b0, rows 0-3 tokens 0-3 of the even block, rows 4-7
// the zero row; matrix 1 (lanes 8-15) is b1, rows 0-3 the zero row, rows 4-7 tokens 0-3 of the
// odd block; and the fold: lanes t and t + 2 hold the same outputs, from the two blocks of each
// chunk, and add them at the end of a tile.
template <class Base>
struct PairActs {
    static constexpr int kZeroBytes = QK4_0;
    const uint8_t* row;  // this lane's ldmatrix row at chunk 0: a token's codes, or the zero row
    int row_step;        // bytes per chunk: 64, or 0 for the zero row

    __host__ __device__ static int act_bytes(int tokens, int max_chunks) { return Base::act_bytes(tokens, max_chunks) + kZeroBytes; }

    template <int TOKENS>
    __device__ static void stage(uint8_t* mine, const typename Base::Args& p, int max_chunks, Slice s) {
        static_assert(TOKENS <= kPairTokens, "two blocks per mma leave 4 columns per block");
        const int lane = threadIdx.x % 32;
        if (lane < kZeroBytes / 16) reinterpret_cast<uint4*>(mine + Base::act_bytes(TOKENS, max_chunks))[lane] = make_uint4(0, 0, 0, 0);
        Base::Acts::template stage<TOKENS>(mine, p, max_chunks, s);  // ends with __syncwarp
    }

    template <int TOKENS>
    __device__ PairActs(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>) {
        const Row r = lane_row<TOKENS>(mine, max_chunks);
        row = r.row, row_step = r.step;
    }

    __device__ static void fold(float (&acc)[gemv_mma::kTilesPerItem][4]) {
#pragma unroll
        for (int t = 0; t < gemv_mma::kTilesPerItem; ++t)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[t][i] += __shfl_xor_sync(0xFFFFFFFFu, acc[t][i], 2);
    }

  private:
    struct Row {
        const uint8_t* row;
        int step;
    };
    template <int TOKENS>
    __device__ static Row lane_row(const uint8_t* mine, int max_chunks) {
        const int lane = threadIdx.x % 32, matrix = (lane / 8) % 2, r = lane % 8;
        const bool real = (r < kPairTokens) == (matrix == 0);
        const int token = min(r % kPairTokens, TOKENS - 1);
        return real ? Row{mine + token * Base::code_stride(max_chunks) + matrix * QK4_0, kMmaChunk8}
                    : Row{mine + Base::act_bytes(TOKENS, max_chunks), 0};
    }
};

// M <= 4: two blocks per mma pair. An mma's 8 columns hold 4 tokens twice: columns 0-3 block 2c
// of the chunk, columns 4-7 block 2c + 1. Its 32 values of K are half of each block (the first mma
// the first 16 values of both, the second the last 16), with zeros in B where a column's block is
// not: so after the two mma every column holds one block's whole integer sum, and one epilogue (4
// outputs per lane) scales two blocks, where MmaQ4_0Q8_1 spends one per block. The A registers are
// the same unpacked words in another order: {hi(A), hi(B), hi(A'), hi(B')}, then the low nibbles.
// Lane (g, t) ends with block 2c (t < 2) or 2c + 1 (t >= 2) of tokens 2t mod 4, +1: lanes t and
// t + 2 add their sums at the end of a tile (fold).
struct MmaQ4_0Q8_1Pairs {
    using Args = W4A8Args;
    using Piece = MmaQ4_0Q8_1::Piece;
    using Stream = MmaQ4_0Q8_1::Stream;

    __host__ __device__ static int act_bytes(int tokens, int max_chunks) { return PairActs<MmaQ4_0Q8_1>::act_bytes(tokens, max_chunks); }

    struct Acts : PairActs<MmaQ4_0Q8_1> {
        const float* da;  // d_a / 16 of this lane's two tokens at its block of chunk 0

        template <int TOKENS>
        __device__ Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS> tokens)
            : PairActs<MmaQ4_0Q8_1>(mine, max_chunks, tokens) {
            const int t = threadIdx.x % 4;
            da = reinterpret_cast<const float*>(mine + TOKENS * MmaQ4_0Q8_1::code_stride(max_chunks)) + (t / 2) * gemv_mma::kMaxTokens +
                 2 * (t % 2);
        }

        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            const uint32_t sign = 0x80808080u;
            const int lane = threadIdx.x % 32, odd = (lane % 4) / 2;  // this lane's C columns: the chunk's odd block?
            uint32_t b[2][2];  // per half of the blocks
#pragma unroll
            for (int h = 0; h < 2; ++h) ldmatrix_x2(b[h], row + j * row_step + h * 16);
            const float2 d_a = *reinterpret_cast<const float2*>(da + j * kBlocksPerLoad * gemv_mma::kMaxTokens);
#pragma unroll
            for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                const uint4 q = w[t].q;  // {A, B} of the even block, {A', B'} of the odd one
                const uint32_t first[4] = {high_nibbles_to_int8(q.x, sign), high_nibbles_to_int8(q.y, sign),
                                           high_nibbles_to_int8(q.z, sign), high_nibbles_to_int8(q.w, sign)};
                const uint32_t second[4] = {high_nibbles_to_int8(q.x << 4, sign), high_nibbles_to_int8(q.y << 4, sign),
                                            high_nibbles_to_int8(q.z << 4, sign), high_nibbles_to_int8(q.w << 4, sign)};
                int c[4] = {0, 0, 0, 0};
                mma_m16n8k32_s8_s32(c, first, b[0]);
                mma_m16n8k32_s8_s32(c, second, b[1]);
                const float2 dw = __half22float2(bits_half2(odd ? w[t].d[1] : w[t].d[0]));  // rows g and g + 8
                acc[t][0] = fmaf((float)c[0], dw.x * d_a.x, acc[t][0]);
                acc[t][1] = fmaf((float)c[1], dw.x * d_a.y, acc[t][1]);
                acc[t][2] = fmaf((float)c[2], dw.y * d_a.x, acc[t][2]);
                acc[t][3] = fmaf((float)c[3], dw.y * d_a.y, acc[t][3]);
            }
        }
    };
};

}  // namespace gemv_mma_w4a8

inline std::string w4a8_gemv_mma_why_not(const GemmCase& c, const Gpu& gpu) {
    using namespace gemv_mma_w4a8;
    if (c.K % kMmaChunk8 != 0) return "needs K to be a multiple of " + std::to_string(kMmaChunk8);
    return c.M <= kPairTokens ? gemv_mma_why_not<MmaQ4_0Q8_1Pairs>(c.M, c.K, gpu.smem_per_block_optin)
                                                : gemv_mma_why_not<MmaQ4_0Q8_1>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a8_gemv_mma(const W4A8Args& p, cudaStream_t s) {
    using namespace gemv_mma_w4a8;
    with_count_up_to<gemv_mma::kMaxTokens>(p.M, [&](auto tokens) {
        constexpr int kTokens = decltype(tokens)::value;
        if constexpr (kTokens <= kPairTokens) launch_gemv_mma_tokens<MmaQ4_0Q8_1Pairs, kTokens>(p, s);
        else launch_gemv_mma_tokens<MmaQ4_0Q8_1, kTokens>(p, s);
    });
}
