// ggml_kquants_tensor.h - whole tensors through the K-quant reference code of ggml_kquants.h: n
// values (a multiple of 256) in, ggml's bytes out, and back. Step 2's file tool writes them, step
// 5's live comparison sets them beside the reader's own ggml.
#pragma once

#include "ggml_kquants.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct KQuantFormat {
    const char* name;
    size_t block_bytes;
    std::vector<uint8_t> (*quantize)(const std::vector<float>& x);        // x.size() a multiple of QK_K
    std::vector<float> (*dequantize)(const std::vector<uint8_t>& bytes);  // whole blocks
};

template <class Block, void (*QUANTIZE)(const float*, Block*, int64_t), void (*DEQUANTIZE)(const Block*, float*, int64_t)>
KQuantFormat kquant_format_of(const char* name) {
    return {name, sizeof(Block),
            [](const std::vector<float>& x) {
                std::vector<uint8_t> bytes(x.size() / QK_K * sizeof(Block));
                QUANTIZE(x.data(), reinterpret_cast<Block*>(bytes.data()), (int64_t)x.size());
                return bytes;
            },
            [](const std::vector<uint8_t>& bytes) {
                std::vector<float> y(bytes.size() / sizeof(Block) * QK_K);
                DEQUANTIZE(reinterpret_cast<const Block*>(bytes.data()), y.data(), (int64_t)y.size());
                return y;
            }};
}

// The K-quant format of that name, q4_k or q6_k; nullptr for any other.
inline const KQuantFormat* kquant_format(const std::string& name) {
    static const KQuantFormat q4_k = kquant_format_of<block_q4_K, quantize_row_q4_K_ref, dequantize_row_q4_K>("q4_k"),
                              q6_k = kquant_format_of<block_q6_K, quantize_row_q6_K_ref, dequantize_row_q6_K>("q6_k");
    return name == q4_k.name ? &q4_k : name == q6_k.name ? &q6_k : nullptr;
}
