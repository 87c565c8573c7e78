// ggml_quants_tensor.h - whole tensors through the CPU reference quantizers of ggml_quants.h:
// n values (a multiple of 32) in, a tensor of blocks out, rows in parallel; and back.
#pragma once

#include "ggml_quants.h"
#include "launch.h"
#include "parallel_for.h"

#include <algorithm>
#include <cstdint>
#include <vector>

// One quantized tensor: its format and its bytes.
struct QuantizedTensor {
    QuantFormat format;
    std::vector<uint8_t> bytes;
};

constexpr int64_t kCpuChunkBlocks = 4096;  // blocks per parallel task

inline QuantizedTensor quantize_cpu(const float* x, int64_t n, QuantFormat f, Q81Sum sum_mode = Q81Sum::DTimesSumQ) {
    QuantizedTensor q{f, std::vector<uint8_t>((size_t)(n / 32) * block_bytes(f))};
    const int64_t nblocks = n / 32;
    parallel_for(ceil_div(nblocks, kCpuChunkBlocks), [&](int64_t chunk) {
        const int64_t b0 = chunk * kCpuChunkBlocks, nb = std::min(kCpuChunkBlocks, nblocks - b0);
        uint8_t* out = q.bytes.data() + b0 * block_bytes(f);
        if (f == QuantFormat::Q4_0) quantize_row_q4_0_ref(x + b0 * 32, reinterpret_cast<block_q4_0*>(out), nb * 32);
        else if (f == QuantFormat::Q8_0) quantize_row_q8_0_ref(x + b0 * 32, reinterpret_cast<block_q8_0*>(out), nb * 32);
        else quantize_row_q8_1_ref(x + b0 * 32, reinterpret_cast<block_q8_1*>(out), nb * 32, sum_mode);
    });
    return q;
}

inline std::vector<float> dequantize_cpu(const QuantizedTensor& q) {
    const int64_t n = (int64_t)(q.bytes.size() / block_bytes(q.format)) * 32;
    std::vector<float> y(n);
    if (q.format == QuantFormat::Q4_0) dequantize_row_q4_0(reinterpret_cast<const block_q4_0*>(q.bytes.data()), y.data(), n);
    else if (q.format == QuantFormat::Q8_0) dequantize_row_q8(reinterpret_cast<const block_q8_0*>(q.bytes.data()), y.data(), n);
    else dequantize_row_q8(reinterpret_cast<const block_q8_1*>(q.bytes.data()), y.data(), n);
    return y;
}

// Q8_1 blocks of a rows x k matrix (k a multiple of 32), rows in parallel.
inline std::vector<block_q8_1> quantize_rows_q8_1(const std::vector<float>& x, int64_t rows, int64_t k, Q81Sum sum_mode) {
    return quantize_rows<block_q8_1, QK8_1>(
        x, rows, k, [sum_mode](const float* row, block_q8_1* y, int64_t n) { quantize_row_q8_1_ref(row, y, n, sum_mode); });
}
