// w4a8_mma_layout.h - Q4_0 weights repacked for int8 tensor cores (kernels/09_mma_int8.cuh), on
// the CPU, with the model the tests check it against.
//
// mma.sync m16n8k32 (s8) takes its A operand, 16 weight rows x 32 values of K (one Q4_0 block
// per row), as four 32-bit registers per lane, four int8 each. In PTX's layout lane L (g = L/4,
// t = L%4) holds in register j, byte e:
//     row g + 8·(j & 1),  column 4t + e + 16·(j >> 1).
// A nibble n becomes the int8 16·(n - 8) with no conversion: XOR the byte with 0x88 (flips the
// top bit of both nibbles) and keep the high nibble: ((n ^ 8) << 4) read as a signed byte is
// 16·(n - 8). So one LOP3, (w ^ 0x88888888) & 0xF0F0F0F0, turns the high nibbles of a word into
// four int8 values, and the same after w << 4 does the low nibbles. The repack puts register 0's
// four codes in the high nibbles of word A and register 2's in its low nibbles; registers 1 and 3
// likewise in word B. Two blocks (64 values of K) make one 16-byte load per lane:
//     words[tile][K/64][lane][4] = {A(block 2c), B(block 2c), A(block 2c+1), B(block 2c+1)}.
// The factor 16 is exact and is taken out with the scale: d_w / 16.
// Scales: per (16-row tile, block, g) the half2 (d[g], d[g+8]). Rows are padded to a multiple of
// 16 with code 8 (zero) and scale 0.
#pragma once

#include "../common/ggml_quants.h"
#include "../common/parallel_for.h"
#include "../common/q4_0_mma_scales.h"
#include "../common/row_blocks.h"

#include <cstdint>
#include <vector>

constexpr int kMmaRows8 = 16;         // weight rows per tile
constexpr int kBlocksPerLoad = 2;     // Q4_0 blocks in one lane's 16-byte load
constexpr int kMmaChunk8 = QK4_0 * kBlocksPerLoad;  // 64 values of K
static_assert(kMmaRows8 == kQ4_0MmaTileRows, "the scale stream is q4_0_mma_scales.h's");

// The last 16-row tile of N rows: a tile past it is read from this one instead (finite data
// whose rows are never stored), so that no copy needs a bound.
__host__ __device__ inline int last_mma_row_tile(int N) { return (N + kMmaRows8 - 1) / kMmaRows8 - 1; }

struct Int8FragmentPosition {
    int row, col;  // within the 16 x 32 tile
};

// Where byte e of register j of lane `lane` sits in the 16 x 32 tile (PTX's A fragment).
inline Int8FragmentPosition mma8_a_position(int lane, int j, int e) {
    return {lane / 4 + 8 * (j & 1), 4 * (lane % 4) + e + 16 * (j >> 1)};
}

struct Q4_0MmaLayout {
    int64_t row_tiles = 0, K = 0;
    std::vector<uint32_t> words;   // [row_tiles][K/64][32][4]
    std::vector<uint32_t> scales;  // [row_tiles][K/32][8]: half2(d[g], d[g+8])
};

inline size_t mma8_word_index(int64_t tile, int64_t block, int lane, int word, int64_t K) {
    return (((size_t)tile * (K / kMmaChunk8) + block / kBlocksPerLoad) * 32 + lane) * 4 + (block % kBlocksPerLoad) * 2 + word;
}

// One lane's two words for one (tile, block): word A = registers 0 (high nibbles) and 2 (low),
// word B = registers 1 and 3. Byte e of a word holds byte e of both of its registers.
// code(n, col) is the 4-bit code of row n at column col of the block; rows past N get `pad`.
template <class Code>
inline void pack_lane_words(Code code, int pad, int64_t N, int64_t tile, int lane, uint32_t out[2]) {
    for (int word = 0; word < 2; ++word) {
        uint32_t v = 0;
        for (int e = 0; e < 4; ++e) {
            int nib[2];  // [0]: the register in the high nibble (j = word), [1]: low nibble (j = word + 2)
            for (int h = 0; h < 2; ++h) {
                const Int8FragmentPosition p = mma8_a_position(lane, word + 2 * h, e);
                const int64_t n = tile * kMmaRows8 + p.row;
                nib[h] = n < N ? code(n, p.col) : pad;
            }
            v |= (uint32_t)(nib[0] << 4 | nib[1]) << (8 * e);
        }
        out[word] = v;
    }
}

// Every (tile, block, lane) of a matrix of 4-bit codes, code(n, block, col), into
// words[tile][K/64][lane][4] (the layout above).
template <class Code>
inline std::vector<uint32_t> pack_mma_words(Code code, int pad, int64_t N, int64_t K) {
    const int64_t row_tiles = (N + kMmaRows8 - 1) / kMmaRows8, nblocks = K / QK4_0;
    std::vector<uint32_t> words(row_tiles * (K / kMmaChunk8) * 32 * 4, 0);
    parallel_for(row_tiles, [&](int64_t tile) {
        for (int64_t b = 0; b < nblocks; ++b)
            for (int lane = 0; lane < 32; ++lane) {
                uint32_t pair[2];
                pack_lane_words([&](int64_t n, int col) { return code(n, b, col); }, pad, N, tile, lane, pair);
                words[mma8_word_index(tile, b, lane, 0, K)] = pair[0];
                words[mma8_word_index(tile, b, lane, 1, K)] = pair[1];
            }
    });
    return words;
}

// K must be a multiple of 64.
inline Q4_0MmaLayout repack_q4_0_for_mma(const std::vector<block_q4_0>& w, int64_t N, int64_t K) {
    Q4_0MmaLayout r;
    r.row_tiles = (N + kMmaRows8 - 1) / kMmaRows8;
    r.K = K;
    const int64_t nblocks = K / QK4_0;
    r.words = pack_mma_words([&](int64_t n, int64_t b, int col) { return q4_0_code(w[n * nblocks + b], col); }, 8, N, K);  // 8: zero
    r.scales = q4_0_mma_tile_scales(w, N, K);
    return r;
}

// The same pieces in row blocks of kMmaRowBlockTiles tiles (common/row_blocks.h), for rung 16,
// whose copy thread brings a stage of a row block (8 tiles x 128 values of K) as one bulk copy of
// words and one of scales:
//   words:  [row block][K/64][tile in block][32 lanes][4]   (a piece: 512 bytes, two blocks)
//   scales: [row block][K/32][tile in block][8]             (a piece: 32 bytes)
constexpr int kMmaRowBlockTiles = 8;
// Rung 16's output tile: a row block of weight rows x 128 tokens (what its split workspace holds per piece).
constexpr int kRowBlockTileValues = kMmaRowBlockTiles * kMmaRows8 * 128;
inline Q4_0MmaLayout order_q4_0_mma_by_row_block(const Q4_0MmaLayout& m) {
    return {m.row_tiles, m.K, order_by_row_block(m.words, m.row_tiles, m.K / kMmaChunk8, 32 * 4, kMmaRowBlockTiles),
            order_by_row_block(m.scales, m.row_tiles, m.K / QK4_0, 8, kMmaRowBlockTiles)};
}

// What the kernel does to a word (the same code on the host for the tests): the int8 16·(n - 8) of the high (or, shifted, the
// low) nibble of each byte.
GGML_HD uint32_t int8_from_high_nibbles(uint32_t w) { return (w ^ 0x88888888u) & 0xF0F0F0F0u; }
GGML_HD uint32_t int8_from_low_nibbles(uint32_t w) { return int8_from_high_nibbles(w << 4); }

#ifdef __CUDACC__
// int8_from_high_nibbles as one instruction: (w & 0xF0F0F0F0) ^ sign, with sign = 0x80808080 in a
// register. Written as C++, the compiler keeps both constants as immediates and, since a LOP3
// takes one, spends two.
__device__ __forceinline__ uint32_t high_nibbles_to_int8(uint32_t w, uint32_t sign) {
    uint32_t r;
    asm("lop3.b32 %0, %1, 0xF0F0F0F0, %2, 0x6A;" : "=r"(r) : "r"(w), "r"(sign));  // 0x6A: (a & b) ^ c
    return r;
}
#endif
