// q4_0_layout.cuh - Q4_0 weights as steps 3 and 4 keep them: quantized rows, and the one offline
// transformation their fast kernels read.
//
// ggml's Q4_0 block is 18 bytes, a 2-byte scale then 16 bytes of nibbles. An array of 18-byte
// blocks is only 2-byte aligned, so a kernel reading it directly needs eight 2-byte loads per
// block. Repacked, the same bytes sit in two streams: all the nibbles (16 bytes per block,
// 16-byte aligned: one load per block) and all the scales. Nothing is requantized; a block's
// bytes are only moved (the repack is checked against the original in the tests).
#pragma once

#include "ggml_quants.h"
#include "parallel_for.h"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <vector>

// Quantizes a row-major [rows, k] matrix on the CPU, rows in parallel (ggml's reference quantizer).
inline std::vector<block_q4_0> quantize_rows_q4_0(const std::vector<float>& x, int64_t rows, int64_t k) {
    return quantize_rows<block_q4_0, QK4_0>(x, rows, k, quantize_row_q4_0_ref);
}

// The repacked weights on the host: the same bytes, in two streams.
struct Q4_0Repacked {
    std::vector<uint8_t> qs;   // nblocks x 16
    std::vector<ggml_half> d;  // nblocks
};

inline Q4_0Repacked repack_q4_0(const std::vector<block_q4_0>& blocks) {
    Q4_0Repacked r{std::vector<uint8_t>(blocks.size() * 16), std::vector<ggml_half>(blocks.size())};
    for (size_t b = 0; b < blocks.size(); ++b) {
        std::memcpy(&r.qs[b * 16], blocks[b].qs, 16);
        r.d[b] = blocks[b].d;
    }
    return r;
}

inline std::vector<block_q4_0> unpack_q4_0(const Q4_0Repacked& r) {
    std::vector<block_q4_0> blocks(r.d.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
        blocks[b].d = r.d[b];
        std::memcpy(blocks[b].qs, &r.qs[b * 16], 16);
    }
    return blocks;
}

// ggml_half bits to float, on the device (the hardware conversion; exact, like fp16_to_fp32).
__device__ __forceinline__ float half_bits_to_float(ggml_half h) { return __half2float(__ushort_as_half(h)); }
