// ggml_live.cpp - step 5's calls into the reader's ggml (see ggml_live.h). Compiled and linked
// only with -DGGML_DIR; this file is ours, ggml is found, never built, by this repository.
#include "ggml_live.h"

#include "ggml.h"

static ggml_type ggml_type_of(LiveFormat f) {
    switch (f) {
        case LiveFormat::Q4_0: return GGML_TYPE_Q4_0;
        case LiveFormat::Q8_0: return GGML_TYPE_Q8_0;
        case LiveFormat::Q8_1: return GGML_TYPE_Q8_1;
        case LiveFormat::Q4_K: return GGML_TYPE_Q4_K;
        default: return GGML_TYPE_Q6_K;
    }
}

std::string ggml_live_version() { return std::string("ggml ") + ggml_version() + " (" + ggml_commit() + ")"; }

std::vector<uint8_t> ggml_live_quantize(LiveFormat f, const float* x, int64_t n) {
    const ggml_type t = ggml_type_of(f);
    const ggml_from_float_t quantize = ggml_get_type_traits(t)->from_float_ref;
    if (!quantize) return {};
    std::vector<uint8_t> out(ggml_row_size(t, n));
    quantize(x, out.data(), n);
    return out;
}

std::vector<float> ggml_live_dequantize(LiveFormat f, const std::vector<uint8_t>& blocks, int64_t n) {
    const ggml_to_float_t dequantize = ggml_get_type_traits(ggml_type_of(f))->to_float;
    if (!dequantize) return {};
    std::vector<float> out((size_t)n);
    dequantize(blocks.data(), out.data(), n);
    return out;
}
