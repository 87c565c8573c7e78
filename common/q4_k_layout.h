// q4_k_layout.h - Q4_K weights as a decoding kernel wants them: ggml's bytes, moved, not changed.
//
// ggml's block_q4_K (144 bytes, ggml_kquants.h) is a 16-byte header (fp16 d, fp16 dmin, the 12
// bytes of packed 6-bit sub-block scales and mins) followed by 128 bytes of codes in which each
// 32-byte run holds two sub-blocks of 32 values: sub-block 2i in the low nibbles, 2i + 1 in the
// high ones. A thread that owns one sub-block (the way step 4's resident GEMV gives a thread one
// Q4_0 block) would load 32 bytes to use half of each. Repacked, the same bytes sit in two streams:
//   headers  16 bytes per super-block, read by the 8 threads of its sub-blocks: ggml's d and dmin,
//            then the same 96 bits of scales and mins in another order (q4_k_lane_header);
//   codes    16 bytes per sub-block, in Q4_0's nibble order (byte l holds value l in its low nibble
//            and value l + 16 in its high one), so Q4_0's DP4A unpacking (block_sumi_words in
//            q4_0_q8_1.h) multiplies a sub-block by a Q8_1 block of activations unchanged.
// Nothing is requantized and no byte is added (4.5 bits per weight, as in ggml's file): the 6-bit
// scales stay 6 bits wide, and a thread unpacks its own sub-block's scale and min
// (q4_k_lane_scale_min): a few integer instructions per 32 values, against 8 more bytes per
// super-block if they were widened to bytes offline.
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

// The header's 12 bytes of scales and mins, rearranged so that a lane needs two words, not three,
// and unpacks without a select. ggml packs sub-blocks 0-3 whole into bytes 0-7 and splits 4-7
// across the spare top bits of those bytes and a nibble each of bytes 8-11 (q4_k_scale_min), so a
// lane that owns sub-block j reads all three words and both forms of the unpacking. Here, in
// bytes 4-15 of the header (after d and dmin, which stay where ggml has them):
//   byte 4 + j    sc_j (6 bits) | the top 2 bits of m_j << 6        (words 1 and 2)
//   nibble j      the low 4 bits of m_j, bits 4j..4j+3 of word 3
// The same 96 bits, so the same 16 bytes; sub-block j's scale is byte j % 4 of word 1 + j / 4.
inline void q4_k_lane_header(const block_q4_K& b, uint8_t out[kQ4KHeaderBytes]) {
    std::memcpy(out, &b, 4);  // d, dmin
    uint32_t m_low = 0;
    for (int j = 0; j < kQ4KSubBlocks; ++j) {
        int sc, m;
        kquants::q4_k_scale_min(j, b.scales, sc, m);
        out[4 + j] = (uint8_t)(sc | (m >> 4) << 6);
        m_low |= (uint32_t)(m & 0xF) << (4 * j);
    }
    std::memcpy(out + 12, &m_low, 4);
}

// Sub-block j's 6-bit scale and min from the two words of a lane header that hold them: sc_word
// (word 1 + j / 4) and m_low_word (word 3).
GGML_HD void q4_k_lane_scale_min(int j, uint32_t sc_word, uint32_t m_low_word, int& scale, int& min) {
    const uint32_t byte = sc_word >> (8 * (j % 4));
    scale = (int)(byte & 63);
    min = (int)((byte >> 2 & 0x30) | (m_low_word >> (4 * j) & 0xF));
}

// ggml's 16 bytes back from a lane header: q4_k_scale_min's packing, inverted.
inline void q4_k_ggml_header(const uint8_t lane[kQ4KHeaderBytes], block_q4_K& b) {
    std::memcpy(&b, lane, 4);
    uint32_t words[4];
    std::memcpy(words, lane, sizeof(words));
    for (int j = 0; j < kQ4KSubBlocks; ++j) {  // 0-3 first, as the packer expects
        int sc, m;
        q4_k_lane_scale_min(j, words[1 + j / 4], words[3], sc, m);
        kquants::q4_k_pack_scale_min(j, sc, m, b.scales);
    }
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
        q4_k_lane_header(blocks[b], &r.headers[b * kQ4KHeaderBytes]);
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
        q4_k_ggml_header(&r.headers[b * kQ4KHeaderBytes], blocks[b]);
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
