// q4_0_mma_scales.h - the scale stream of Q4_0 repacked for mma.sync, shared by step 3's fp16
// m16n8k16 layout and step 4's int8 m16n8k32 layout: per 16-row tile, 32-value block and g = 0..7,
// one word half2(d[g], d[g + 8]), the scales of the two rows that lanes 4g..4g+3 hold in the A
// fragment.
#pragma once

#include "ggml_quants.h"
#include "parallel_for.h"

#include <cstdint>
#include <vector>

constexpr int kQ4_0MmaTileRows = 16;  // the mma's M

// [row tiles][K/32][8]; rows past N (the last tile's padding) get d = 0.
inline std::vector<uint32_t> q4_0_mma_tile_scales(const std::vector<block_q4_0>& w, int64_t N, int64_t K) {
    const int64_t row_tiles = (N + kQ4_0MmaTileRows - 1) / kQ4_0MmaTileRows, nblocks = K / QK4_0;
    std::vector<uint32_t> scales(row_tiles * nblocks * 8, 0);
    parallel_for(row_tiles, [&](int64_t tile) {
        for (int64_t b = 0; b < nblocks; ++b)
            for (int g = 0; g < 8; ++g) {
                const int64_t n0 = tile * kQ4_0MmaTileRows + g, n1 = n0 + 8;
                const uint32_t d0 = n0 < N ? w[n0 * nblocks + b].d : 0, d1 = n1 < N ? w[n1 * nblocks + b].d : 0;
                scales[(tile * nblocks + b) * 8 + g] = d0 | d1 << 16;
            }
    });
    return scales;
}
