// q4_k_mma_layout.h - Q4_K weights repacked for the int8 tensor-core kernels
// (kernels/14_gemv_mma_q4_k.cuh, 15_mma_q4_k.cuh), on the CPU.
//
// The codes: Q4_0's mma layout (w4a8_mma_layout.h) with a Q4_K sub-block of 32 values in the place
// of a Q4_0 block, 16 bytes per (16-row tile, 64 values of K, lane). Only what a byte means
// changes: the kernel takes a nibble as the unsigned int8 q (0..15), not Q4_0's 16·(q − 8), because
// Q4_K's offset is a per-sub-block minimum that s pays for (common/q4_k_q8_1.h).
// The scales, unpacked once, here (a tile's lane needs two rows' scales per 32 values, and the
// 6-bit packing spreads a sub-block's over three bytes):
//   sub_scales  one word per (tile, sub-block, g), bytes {sc[g], m[g], sc[g + 8], m[g + 8]}: the
//               shape of Q4_0's scale stream, so a lane reads both of its rows with one load;
//   d_dmin      two words per (tile, super-block, g): (d, dmin) of row g, then of row g + 8, ggml's
//               fp16 bits;
//   d_sc        rung 15's only: d·sc_j of rows g and g + 8 per (tile, sub-block, g), as FP32 (exact:
//               an fp16 d times a 6-bit sc has 17 significant bits), so its epilogue reads the
//               scale instead of making it from a byte (KQUANTS.md, "Tensor cores for Q4_K prompts (rung 15)").
// Rung 14 reads the first three, 4.625 bits per weight against ggml's 4.5: 2.8% more to read, and
// no 6-bit unpacking in the kernel. Rung 15 reads all four, 5.625 bits per weight: at M = 512 it
// is bound by instructions, not bytes. Rows past N are padded with code 0 and zero scales.
#pragma once

#include "../common/ggml_kquants.h"
#include "../common/parallel_for.h"
#include "w4a8_mma_layout.h"

#include <cstdint>
#include <vector>

constexpr int kQ4KMmaSubBlocks = QK_K / QK4_0;  // sub-blocks per super-block, each a Q4_0 block's place
static_assert(QK_K % kMmaChunk8 == 0, "a super-block is whole 64-value chunks");

struct Q4_KMmaLayout {
    std::vector<uint32_t> words;       // [row_tiles][K/64][32][4]
    std::vector<uint32_t> sub_scales;  // [row_tiles][K/32][8]
    std::vector<uint32_t> d_dmin;      // [row_tiles][K/256][8][2]
    std::vector<float> d_sc;           // [row_tiles][K/32][8][2]
};

inline size_t q4_k_mma_sub_scale_index(int64_t tile, int64_t sub_block, int g, int64_t K) {
    return ((size_t)tile * (K / QK4_0) + sub_block) * 8 + g;
}
inline size_t q4_k_mma_d_sc_index(int64_t tile, int64_t sub_block, int g, int half, int64_t K) {
    return q4_k_mma_sub_scale_index(tile, sub_block, g, K) * 2 + half;
}
inline size_t q4_k_mma_d_dmin_index(int64_t tile, int64_t super, int g, int half, int64_t K) {
    return (((size_t)tile * (K / QK_K) + super) * 8 + g) * 2 + half;
}

// K must be a multiple of 256.
inline Q4_KMmaLayout repack_q4_k_for_mma(const std::vector<block_q4_K>& w, int64_t N, int64_t K) {
    const int64_t nsuper = K / QK_K, row_tiles = (N + kMmaRows8 - 1) / kMmaRows8;
    Q4_KMmaLayout r;
    r.words = pack_mma_words(
        [&](int64_t n, int64_t b, int col) {
            return q4_k_code(w[n * nsuper + b / kQ4KMmaSubBlocks], QK4_0 * (int)(b % kQ4KMmaSubBlocks) + col);
        },
        0, N, K);
    r.sub_scales.assign(row_tiles * (K / QK4_0) * 8, 0);
    r.d_dmin.assign(row_tiles * nsuper * 8 * 2, 0);
    r.d_sc.assign(row_tiles * (K / QK4_0) * 8 * 2, 0.f);
    parallel_for(row_tiles, [&](int64_t tile) {
        for (int g = 0; g < 8; ++g)
            for (int half = 0; half < 2; ++half) {  // rows g and g + 8
                const int64_t n = tile * kMmaRows8 + g + 8 * half;
                if (n >= N) continue;
                for (int64_t s = 0; s < nsuper; ++s) {
                    const block_q4_K& x = w[n * nsuper + s];
                    r.d_dmin[q4_k_mma_d_dmin_index(tile, s, g, half, K)] = (uint32_t)x.d | (uint32_t)x.dmin << 16;
                    for (int j = 0; j < kQ4KMmaSubBlocks; ++j) {
                        int sc, m;
                        kquants::q4_k_scale_min(j, x.scales, sc, m);
                        r.sub_scales[q4_k_mma_sub_scale_index(tile, s * kQ4KMmaSubBlocks + j, g, K)] |= (uint32_t)(sc | m << 8)
                                                                                                         << (16 * half);
                        r.d_sc[q4_k_mma_d_sc_index(tile, s * kQ4KMmaSubBlocks + j, g, half, K)] = fp16_to_fp32(x.d) * (float)sc;
                    }
                }
            }
    });
    return r;
}
