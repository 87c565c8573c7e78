// 09 Decoding with the copy engine (sm_90): 06's tensor-core GEMV, its weights brought into
// shared memory by bulk copies from one thread, as deep in flight as shared memory allows. For
// Q4_0 and for group-128. An experiment that answers a question more than a faster kernel.
//
// Idea: 06 loads each lane's pieces into registers a few chunks ahead and streams the weights at
// about half of HBM's rate. Is that the loads (too few bytes in flight) or the math? Here
// (common/gemv_tma.cuh) the copy warp's lane 0 keeps a ring of 34 KB stages (17 KB at M = 1) in flight
// (cp.async.bulk, counted in bytes by a "full" mbarrier per stage, as 07 does for its
// activations); a math warp copies its chunks' pieces from the stage into registers, releases
// the stage at once (the "empty" mbarrier) and computes them exactly as 06 does (same pieces,
// same dequantization, same mma). 06's repacked streams are contiguous per tile, so a stage of
// two tiles is four bulk copies, and the activations one bulk copy per token.
// Improves: the loads wait neither for the math nor for registers; the copy engine runs ahead
// across tiles while the warps add up a tile's sums.
// Limit: it runs within a few percent of 06, and that is the answer: the ring's depth does not
// matter, and the same kernel without its math is a quarter faster (LAB_NOTES.md). What limits
// decoding is the dequantization's instructions per weight. The staged fp16 activations and the ring share
// the 227 KB (M = 8 fits K = 4096, not 14336: its row says SKIP). Needs sm_90 (bulk copies,
// mbarrier byte counts); elsewhere its rows say SKIP.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gemv_tma.cuh"
#include "../../common/gpu.cuh"
#include "06_gemv_mma.cuh"

namespace gemv_tma_w4a16 {

using gemv_mma_w4a16::F16SliceActs;

// The copy thread's share of the activations: every token's fp16 row, one bulk copy each, into
// 06's staging rows (all of K; the pad after each row keeps ldmatrix free of bank conflicts).
template <int TOKENS>
__device__ void copy_f16_rows(uint8_t* all, const W4A16Args& p, int chunks, uint64_t* bar) {
    const uint32_t row_bytes = p.K * sizeof(__half);
    arrive_expect_tx(bar, TOKENS * row_bytes);
    for (int t = 0; t < TOKENS; ++t) bulk_copy(all + t * F16SliceActs::row_stride(chunks), p.a_f16 + (size_t)t * p.K, row_bytes, bar);
}

// 06's group-128 stream: per tile, [K/64 chunks][32 lanes][16 bytes] of nibbles and
// [K/128 groups][8 g][(s, 1024 + z) pairs] of scales, both contiguous.
struct TmaG128W4A16 : gemv_mma_w4a16::MmaG128W4A16 {
    static constexpr int kScaleBytesPerChunk = 8 * sizeof(uint2) / 2;  // a group's 8 pairs serve two chunks
    template <int TOKENS>
    __device__ static void copy_acts(uint8_t* all, const Args& p, int chunks, uint64_t* bar) { copy_f16_rows<TOKENS>(all, p, chunks, bar); }
    __device__ static const void* tile_words(const Args& p, int tile, int chunk) {
        return p.mma_words + ((size_t)tile * (p.K / kMmaChunkK) + chunk) * kWordsPerPiece;
    }
    __device__ static const void* tile_scales(const Args& p, int tile, int chunk) {
        return p.mma_scales + ((size_t)tile * (p.K / kGroupSize) + chunk / 2) * kScaleWordsPerPiece;
    }
    __device__ static Piece shared_piece(const uint8_t* words, const uint8_t* scales, int c) {
        const int lane = threadIdx.x % 32;
        return {reinterpret_cast<const uint4*>(words)[c * 32 + lane], reinterpret_cast<const uint2*>(scales)[(c / 2) * 8 + lane / 4]};
    }
};

// 06's Q4_0 stream: the same nibbles, and per tile [K/32 blocks][8 g] scale words.
struct TmaQ4_0W4A16 : gemv_mma_w4a16::MmaQ4_0W4A16 {
    static constexpr int kScaleBytesPerChunk = 2 * 8 * sizeof(uint32_t);  // two blocks
    template <int TOKENS>
    __device__ static void copy_acts(uint8_t* all, const Args& p, int chunks, uint64_t* bar) { copy_f16_rows<TOKENS>(all, p, chunks, bar); }
    __device__ static const void* tile_words(const Args& p, int tile, int chunk) {
        return p.q4_mma_words + ((size_t)tile * (p.K / kMmaChunkK) + chunk) * kWordsPerPiece;
    }
    __device__ static const void* tile_scales(const Args& p, int tile, int chunk) {
        return p.q4_mma_scales + ((size_t)tile * (p.K / QK4_0) + 2 * chunk) * 8;
    }
    __device__ static Piece shared_piece(const uint8_t* words, const uint8_t* scales, int c) {
        const int lane = threadIdx.x % 32;
        const uint32_t* d = reinterpret_cast<const uint32_t*>(scales) + 2 * c * 8 + lane / 4;
        return {reinterpret_cast<const uint4*>(words)[c * 32 + lane], {d[0], d[8]}};
    }
};

}  // namespace gemv_tma_w4a16

constexpr ArchNeed kBulkCopyArch{90, false};

inline std::string w4a16_gemv_tma_g128_why_not(const GemmCase& c, const Gpu& gpu) {
    return gemv_tma_why_not<gemv_tma_w4a16::TmaG128W4A16>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a16_gemv_tma_g128(const W4A16Args& p, cudaStream_t s) { launch_gemv_tma<gemv_tma_w4a16::TmaG128W4A16>(p, s); }

inline std::string w4a16_gemv_tma_q4_0_why_not(const GemmCase& c, const Gpu& gpu) {
    if (c.K % kMmaChunkK != 0) return "copy-engine GEMV: K must be a multiple of " + std::to_string(kMmaChunkK) + " (the repacked layout)";
    return gemv_tma_why_not<gemv_tma_w4a16::TmaQ4_0W4A16>(c.M, c.K, gpu.smem_per_block_optin);
}
inline void launch_w4a16_gemv_tma_q4_0(const W4A16Args& p, cudaStream_t s) { launch_gemv_tma<gemv_tma_w4a16::TmaQ4_0W4A16>(p, s); }
