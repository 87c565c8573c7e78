// 14 Q4_K on tensor cores for decoding: rung 10's skeleton (common/gemv_mma.cuh) with the weights
// in Q4_K, so that M = 2..8 tokens cost one mma per 16 rows x 32 values, as they do for Q4_0.
//
// Idea: rung 12 is rung 08 with Q4_K's formula, and inherits 08's wall: every token is another
// set of activation registers and another shuffle-tree sum per row (22.4 µs at M = 4 against 11.5
// at M = 1, K = 14336). Rung 10 gets past it for Q4_0 by making the tokens the 8 columns of an
// int8 m16n8k32 mma. A Q4_K sub-block is 32 values, one Q4_0 block's place in the tile, so the
// skeleton and the mma are rung 10's; what changes is the epilogue of each (tile, sub-block):
//   C[row][token] += d·sc_j·d_a·c − dmin·m_j·s,   c = Σ q·q_a from the mma, q in 0..15,
// Q4_K × Q8_1 as in rung 12 (common/q4_k_q8_1.h), with c the mma's integer where 12 has DP4A's.
// The weights are repacked once, offline (q4_k_mma_layout.h): codes in rung 10's fragment order,
// the 6-bit scales and minimums unpacked to bytes, one word per (tile, sub-block, g) holding both
// of a lane's rows, and (d, dmin) per (tile, super-block, g). A lane turns its nibbles into the
// unsigned int8 q (a mask, and a shift for the high ones), not Q4_0's 16·(q − 8): the minimum is
// paid by s, and an offset of 8 would need s·8·d·sc_j, which is not exact through s's fp16.
// Improves: Q4_K decoding at M = 2..8 at the cost of rung 10's, not of M times rung 12's.
// Limit: the epilogue is twice Q4_0's per (tile, sub-block) (two scales per row, the minimum's
// multiply-add); 2.8% more bytes than ggml's Q4_K (the unpacked scales); rung 10's limits (the
// activations of a K slice in shared memory, K a multiple of 256 here). At M = 1 rung 12 is faster,
// as rung 08 is for Q4_0.
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gemv_mma.cuh"
#include "../../common/ggml_kquants.h"
#include "../../common/gpu.cuh"
#include "../../common/mma.cuh"
#include "../../common/small_int_to_float.cuh"
#include "../q4_k_mma_layout.h"
#include "../w4a8_layout.cuh"
#include "10_gemv_mma.cuh"

namespace gemv_mma_q4_k {

static_assert(kMmaChunk8 == gemv_mma::kChunkK && kMmaRows8 == gemv_mma::kTileRows, "rung 10's layout is the skeleton's chunk and tile");
constexpr int kChunksPerSuper = QK_K / kMmaChunk8;  // 4 chunks of 64 values per super-block

// The kernel's argument, made from the W4A8Inputs every row is handed (as rung 13's).
struct Q4_KMmaArgs {
    const uint32_t* words;       // [N/16][K/64][32][4] codes, rung 10's fragment order
    const uint32_t* sub_scales;  // [N/16][K/32][8] {sc[g], m[g], sc[g+8], m[g+8]}
    const uint2* d_dmin;         // [N/16][K/256][8] (d, dmin) of rows g and g + 8, fp16 bits
    const int8_t* a_qs;          // the activations, Q8_1 split layout: codes [M][K] ...
    const uint32_t* a_ds;        // ... and (d, s) pairs [M][K/32]
    float* c;                    // [M][N]
    int M, N, K;
};

// The unsigned int8 codes q of a word's high and low nibbles (the layout's registers 0, 1 and 2, 3).
__device__ __forceinline__ uint32_t high_codes(uint32_t word) { return (word >> 4) & 0x0F0F0F0Fu; }
__device__ __forceinline__ uint32_t low_codes(uint32_t word) { return word & 0x0F0F0F0Fu; }

// One mma's epilogue: c holds rows g, g + 8 x the lane's two tokens; sm is the sub-block's word
// {sc[g], m[g], sc[g+8], m[g+8]}, d_dmin its super-block's (d, dmin) of rows g and g + 8, and
// a = (d_a, s) of the two tokens. C += d·sc·d_a·c − dmin·m·s, exact up to FP32 rounding.
__device__ __forceinline__ void add_sub_block(float (&acc)[4], const int (&c)[4], uint32_t sm, const float2 (&d_dmin)[2], float4 a) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {  // rows g and g + 8
        const float d_sc = d_dmin[r].x * small_int_to_float((int)(sm >> (16 * r)) & 0xFF);
        const float dmin_m = d_dmin[r].y * small_int_to_float((int)(sm >> (16 * r + 8)) & 0xFF);
        acc[2 * r] = fmaf(small_int_to_float(c[2 * r]), d_sc * a.x, fmaf(-dmin_m, a.y, acc[2 * r]));
        acc[2 * r + 1] = fmaf(small_int_to_float(c[2 * r + 1]), d_sc * a.z, fmaf(-dmin_m, a.w, acc[2 * r + 1]));
    }
}

struct MmaQ4_KQ8_1 {
    using Args = Q4_KMmaArgs;
    static constexpr int kRowPad = 16;  // bytes after each token's codes: ldmatrix rows fall in different banks

    struct Piece {
        BlockScalePiece w;  // 16 bytes of codes and the sub-block scale words of blocks 2c and 2c + 1
        uint2 d_dmin;       // the chunk's super-block: (d, dmin) of rows g and g + 8
    };
    // A chunk's (d, dmin) of rows g and g + 8 per tile, as FP32.
    __device__ static void d_dmin_of(float2 (&out)[gemv_mma::kTilesPerItem][2], const Piece (&w)[gemv_mma::kTilesPerItem]) {
#pragma unroll
        for (int t = 0; t < gemv_mma::kTilesPerItem; ++t)
            out[t][0] = __half22float2(bits_half2(w[t].d_dmin.x)), out[t][1] = __half22float2(bits_half2(w[t].d_dmin.y));
    }
    // Rung 10's stream for the codes and the per-sub-block words (the same shapes), and beside it
    // the per-super-block pair, read again for each of its 4 chunks (from L1 after the first).
    struct Stream {
        BlockScaleStream codes;
        const uint2* d_dmin;  // this lane's pair of the group's first tile at super-block 0
        size_t d_dmin_tile;   // from one tile to the next
        int first_chunk;      // the slice's first chunk of K
        __device__ Stream(const Args& p, Slice s)
            : codes(p.words, p.sub_scales, p.N, p.K, s),
              d_dmin(p.d_dmin + (size_t)codes.first_tile * (p.K / QK_K) * 8 + (threadIdx.x % 32) / 4),
              d_dmin_tile((size_t)(p.K / QK_K) * 8),
              first_chunk(s.first) {}
        __device__ __forceinline__ void load(Piece (&w)[gemv_mma::kTilesPerItem]) {
            const uint2* pair = d_dmin + (first_chunk + codes.j) / kChunksPerSuper * 8;
            const int tiles = codes.tiles, first_tile = codes.first_tile;
            BlockScalePiece b[gemv_mma::kTilesPerItem];
            codes.load(b);  // may move on to the next group
#pragma unroll
            for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) w[t] = {b[t], __ldg(pair + (t < tiles ? t : 0) * d_dmin_tile)};
            d_dmin += (size_t)(codes.first_tile - first_tile) * d_dmin_tile;
        }
    };

    // A warp's staged activations: the codes of its slice for every token (rows of
    // max_chunks·64 + kRowPad bytes), then (d_a, s) as FP32 of 8 tokens per block (token t >= M
    // repeats M - 1).
    __host__ __device__ static int code_stride(int max_chunks) { return max_chunks * kMmaChunk8 + kRowPad; }
    __host__ __device__ static int act_bytes(int tokens, int max_chunks) {
        return tokens * code_stride(max_chunks) + max_chunks * kBlocksPerLoad * gemv_mma::kMaxTokens * 8;
    }

    struct Acts : GemvMmaNoFold {
        const uint8_t* codes;  // this lane's ldmatrix row at chunk 0
        const float4* da_s;    // (d_a, s) of tokens 2t and 2t + 1 at block 0

        template <int TOKENS>
        __device__ static void stage(uint8_t* mine, const Args& p, int max_chunks, Slice s) {
            gemv_mma_stage_codes_and_scales<TOKENS, float2>(mine, code_stride(max_chunks), p.a_qs, p.a_ds, p.K, s,
                                                            [](uint32_t ds) { return __half22float2(bits_half2(ds)); });
        }

        template <int TOKENS>
        __device__ Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS>) {
            const int lane = threadIdx.x % 32;
            codes = gemv_mma_token_row<TOKENS>(mine, code_stride(max_chunks));
            da_s = reinterpret_cast<const float4*>(mine + TOKENS * code_stride(max_chunks)) + lane % 4;
        }

        // The two sub-blocks of chunk j: per sub-block the activations once (ldmatrix, d_a and s),
        // then for each tile: unpack the nibbles, one mma for all tokens, the two-term epilogue.
        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            float2 d_dmin[gemv_mma::kTilesPerItem][2];  // per tile: rows g and g + 8
            d_dmin_of(d_dmin, w);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int block = kBlocksPerLoad * j + h;  // within the slice
                uint32_t b[2];
                ldmatrix_x2(b, codes + block * QK8_1);
                const float4 a = da_s[block * gemv_mma::kMaxTokens / 2];  // (d_a, s) of tokens 2t, 2t + 1
#pragma unroll
                for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                    const uint32_t word_a = h == 0 ? w[t].w.q.x : w[t].w.q.z, word_b = h == 0 ? w[t].w.q.y : w[t].w.q.w;
                    const uint32_t q[4] = {high_codes(word_a), high_codes(word_b), low_codes(word_a), low_codes(word_b)};
                    int c[4] = {0, 0, 0, 0};
                    mma_m16n8k32_s8_s32(c, q, b);
                    add_sub_block(acc[t], c, w[t].w.d[h], d_dmin[t], a);
                }
            }
        }
    };
};

// M <= 4: two sub-blocks per mma pair, as rung 10's MmaQ4_0Q8_1Pairs does for Q4_0 blocks (its
// comment has the whole scheme): columns 0-3 are tokens 0-3 of sub-block 2c, columns 4-7 of 2c + 1,
// the first mma takes the first 16 values of both, the second the last 16, with zeros in B where a
// column's sub-block is not. Lane (g, t) then holds one sub-block's sums (2c + t / 2) for tokens
// 2(t % 2), +1, and its epilogue (two scales per row, the minimum) runs once per chunk instead of twice.
struct MmaQ4_KQ8_1Pairs {
    using Args = Q4_KMmaArgs;
    using Piece = MmaQ4_KQ8_1::Piece;
    using Stream = MmaQ4_KQ8_1::Stream;

    using Shared = gemv_mma_w4a8::PairActs<MmaQ4_KQ8_1>;  // MmaQ4_KQ8_1's activations, a zero row, the fold
    __host__ __device__ static int act_bytes(int tokens, int max_chunks) { return Shared::act_bytes(tokens, max_chunks); }

    struct Acts : Shared {
        const float4* da_s;  // (d_a, s) of this lane's two tokens at its sub-block of chunk 0

        template <int TOKENS>
        __device__ Acts(const uint8_t* mine, int max_chunks, std::integral_constant<int, TOKENS> tokens) : Shared(mine, max_chunks, tokens) {
            const int t = threadIdx.x % 4;
            // float4 i of a sub-block holds slots 2i, 2i + 1: sub-block t / 2 of the chunk, slots 2(t % 2), +1
            da_s = reinterpret_cast<const float4*>(mine + TOKENS * MmaQ4_KQ8_1::code_stride(max_chunks)) +
                   (t / 2) * (gemv_mma::kMaxTokens / 2) + t % 2;
        }

        __device__ __forceinline__ void chunk(float (&acc)[gemv_mma::kTilesPerItem][4], const Piece (&w)[gemv_mma::kTilesPerItem],
                                              int j) const {
            const int odd = (threadIdx.x % 4) / 2;  // this lane's C columns: the chunk's odd sub-block?
            uint32_t b[2][2];                        // per half of the sub-blocks
#pragma unroll
            for (int h = 0; h < 2; ++h) ldmatrix_x2(b[h], row + j * row_step + h * 16);
            const float4 a = da_s[j * kBlocksPerLoad * (gemv_mma::kMaxTokens / 2)];
            float2 d_dmin[gemv_mma::kTilesPerItem][2];
            MmaQ4_KQ8_1::d_dmin_of(d_dmin, w);
#pragma unroll
            for (int t = 0; t < gemv_mma::kTilesPerItem; ++t) {
                const uint4 q = w[t].w.q;  // {A, B} of the even sub-block, {A', B'} of the odd one
                const uint32_t first[4] = {high_codes(q.x), high_codes(q.y), high_codes(q.z), high_codes(q.w)};
                const uint32_t second[4] = {low_codes(q.x), low_codes(q.y), low_codes(q.z), low_codes(q.w)};
                int c[4] = {0, 0, 0, 0};
                mma_m16n8k32_s8_s32(c, first, b[0]);
                mma_m16n8k32_s8_s32(c, second, b[1]);
                add_sub_block(acc[t], c, odd ? w[t].w.d[1] : w[t].w.d[0], d_dmin[t], a);
            }
        }
    };
};

}  // namespace gemv_mma_q4_k

inline std::string w4a8_gemv_mma_q4_k_why_not(const GemmCase& c, const Gpu& gpu) {
    if (c.K % QK_K != 0) return "Q4_K: K must be a multiple of 256 (whole super-blocks)";
    using namespace gemv_mma_q4_k;
    return c.M <= gemv_mma_w4a8::kPairTokens ? gemv_mma_why_not<MmaQ4_KQ8_1Pairs>(c.M, c.K, gpu.smem_per_block_optin)
                                             : gemv_mma_why_not<MmaQ4_KQ8_1>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a8_gemv_mma_q4_k(const W4A8Args& args, cudaStream_t s) {
    const W4A8Inputs& in = static_cast<const W4A8Inputs&>(args);
    const gemv_mma_q4_k::Q4_KMmaArgs p{in.q4k_mma_words, in.q4k_mma_sub_scales, in.q4k_mma_d_dmin, in.a_qs, in.a_ds, in.c,
                                       in.M, in.N, in.K};
    with_count_up_to<gemv_mma::kMaxTokens>(p.M, [&](auto tokens) {
        constexpr int kTokens = decltype(tokens)::value;
        if constexpr (kTokens <= gemv_mma_w4a8::kPairTokens) launch_gemv_mma_tokens<gemv_mma_q4_k::MmaQ4_KQ8_1Pairs, kTokens>(p, s);
        else launch_gemv_mma_tokens<gemv_mma_q4_k::MmaQ4_KQ8_1, kTokens>(p, s);
    });
}
