// q4_k_layout.h - Q4_K weights as a decoding kernel wants them: ggml's bytes, moved, not changed.
//
// ggml's block_q4_K (144 bytes, ggml_kquants.h) is a 16-byte header (fp16 d, fp16 dmin, the 12
// bytes of packed 6-bit sub-block scales and mins) followed by 128 bytes of codes in which each
// 32-byte run holds two sub-blocks of 32 values: sub-block 2i in the low nibbles, 2i + 1 in the
// high ones. A thread that owns one sub-block (the way step 4's resident GEMV gives a thread one
// Q4_0 block) would load 32 bytes to use half of each. Repacked, the same bytes sit in two streams:
//   headers  16 bytes per super-block, exactly ggml's first 16: one aligned load, read by the 8
//            threads of its sub-blocks;
//   codes    16 bytes per sub-block, in Q4_0's nibble order (byte l holds value l in its low nibble
//            and value l + 16 in its high one), so Q4_0's DP4A unpacking (block_sumi_words in
//            q4_0_q8_1.h) multiplies a sub-block by a Q8_1 block of activations unchanged.
// Nothing is requantized and no byte is added (4.5 bits per weight, as in ggml's file); the 6-bit
// scales stay packed, and a thread unpacks its own sub-block's scale and min (q4_k_scale_min): a
// few integer instructions per 32 values, against 8 more bytes per super-block if unpacked offline.
#pragma once

#include "ggml_kquants.h"
#include "parallel_for.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

constexpr int kQ4KHeaderBytes = 16;                // d, dmin, scales[12]
constexpr int kQ4KSubBlocks = QK_K / 32;           // 8 sub-blocks of 32 values
constexpr int kQ4KSubBlockCodeBytes = 16;          // 32 nibbles
static_assert(offsetof(block_q4_K, qs) == kQ4KHeaderBytes, "the header is what precedes the codes");
static_assert(kQ4KHeaderBytes + kQ4KSubBlocks * kQ4KSubBlockCodeBytes == sizeof(block_q4_K), "no byte added or lost");

struct Q4_KRepacked {
    std::vector<uint8_t> headers;  // nsuper x 16
    std::vector<uint8_t> codes;    // nsuper x 8 x 16
};

// Code l (0..31) of sub-block j of a Q4_0-ordered 16-byte sub-block: the inverse of the packing below.
inline int q4_k_repacked_code(const uint8_t* sub_block, int l) {
    const uint8_t byte = sub_block[l % 16];
    return l < 16 ? byte & 0xF : byte >> 4;
}

// q4_k_scale_min (ggml_kquants.h) for a kernel that holds the 12 packed bytes as three
// little-endian words s0, s1, s2 (bytes 0-3, 4-7, 8-11): shifts instead of a byte array, which a
// GPU would keep in local memory when j is not known at compile time. Sub-block j reads byte j % 4
// of each word: j < 4 the 6-bit scale in s0 and min in s1; j >= 4 the low 4 bits of both in s2
// and their top 2 bits in the spare top bits of s0 (scale) and s1 (min).
// Both forms are computed and one is selected: the 8 lanes of a super-block take both sides of
// j < 4, and a branch would make a warp run them one after the other.
GGML_HD void q4_k_scale_min_words(int j, uint32_t s0, uint32_t s1, uint32_t s2, int& scale, int& min) {
    const int shift = 8 * (j % 4);
    const uint32_t b0 = (s0 >> shift) & 0xFF, b1 = (s1 >> shift) & 0xFF, b2 = (s2 >> shift) & 0xFF;
    const bool low = j < 4;
    scale = (int)(low ? b0 & 63 : (b2 & 0xF) | (b0 >> 6) << 4);
    min = (int)(low ? b1 & 63 : (b2 >> 4) | (b1 >> 6) << 4);
}

// ggml's reference quantizer on every row of a rows x k matrix (k a multiple of 256), all cores.
inline std::vector<block_q4_K> quantize_rows_q4_k(const std::vector<float>& x, int64_t rows, int64_t k) {
    return quantize_rows<block_q4_K, QK_K>(x, rows, k, quantize_row_q4_K_ref);
}

inline Q4_KRepacked repack_q4_k(const std::vector<block_q4_K>& blocks) {
    Q4_KRepacked r;
    r.headers.resize(blocks.size() * kQ4KHeaderBytes);
    r.codes.resize(blocks.size() * kQ4KSubBlocks * kQ4KSubBlockCodeBytes);
    for (size_t b = 0; b < blocks.size(); ++b) {
        std::memcpy(&r.headers[b * kQ4KHeaderBytes], &blocks[b], kQ4KHeaderBytes);
        for (int j = 0; j < kQ4KSubBlocks; ++j) {
            uint8_t* sub = &r.codes[(b * kQ4KSubBlocks + j) * kQ4KSubBlockCodeBytes];
            for (int l = 0; l < 16; ++l)
                sub[l] = (uint8_t)(q4_k_code(blocks[b], 32 * j + l) | q4_k_code(blocks[b], 32 * j + l + 16) << 4);
        }
    }
    return r;
}

// Back to ggml's blocks (the tests check that nothing was lost on the way).
inline std::vector<block_q4_K> unpack_q4_k(const Q4_KRepacked& r) {
    std::vector<block_q4_K> blocks(r.headers.size() / kQ4KHeaderBytes);
    for (size_t b = 0; b < blocks.size(); ++b) {
        std::memcpy(&blocks[b], &r.headers[b * kQ4KHeaderBytes], kQ4KHeaderBytes);
        for (int j = 0; j < kQ4KSubBlocks; ++j) {
            const uint8_t* sub = &r.codes[(b * kQ4KSubBlocks + j) * kQ4KSubBlockCodeBytes];
            for (int l = 0; l < 32; ++l) {  // value 32j + l: run j / 2, byte l, low nibble for even j
                uint8_t& byte = blocks[b].qs[(j / 2) * 32 + l];
                const int code = q4_k_repacked_code(sub, l);
                byte = (j % 2 == 0) ? (uint8_t)((byte & 0xF0) | code) : (uint8_t)((byte & 0x0F) | code << 4);
            }
        }
    }
    return blocks;
}
