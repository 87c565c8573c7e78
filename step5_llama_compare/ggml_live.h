// ggml_live.h - the few calls step 5 makes into the reader's own ggml library (ggml_live.cpp),
// built only when CMake is given -DGGML_DIR (README.md, "The live comparison"). Nothing here
// includes ggml's headers, so our own ggml-compatible definitions never meet theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

enum class LiveFormat { Q4_0, Q8_0, Q8_1 };

// "ggml <version> (<commit>)" of the library linked in.
std::string ggml_live_version();

// ggml's reference quantizer (its type traits' from_float_ref) on n values: the blocks' bytes,
// or nothing when ggml has none for the format.
std::vector<uint8_t> ggml_live_quantize(LiveFormat f, const float* x, int64_t n);

// ggml's dequantizer (to_float) on those bytes: n floats, or nothing when ggml has none (Q8_1:
// an activation format, never dequantized by ggml).
std::vector<float> ggml_live_dequantize(LiveFormat f, const std::vector<uint8_t>& blocks, int64_t n);
