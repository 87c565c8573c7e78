// ggml_live.h - the few calls step 5 makes into the reader's own ggml library (ggml_live.cpp),
// built only when CMake is given -DGGML_DIR (README.md, "The live comparison"). Nothing here
// includes ggml's headers, so our own ggml-compatible definitions never meet theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

enum class LiveFormat { Q4_0, Q8_0, Q8_1, Q4_K, Q6_K };

// "ggml <version> (<commit>)" of the library linked in.
std::string ggml_live_version();

// ggml's reference quantizer (its type traits' from_float_ref) on n values: the blocks' bytes,
// or nothing when ggml has none for the format.
std::vector<uint8_t> ggml_live_quantize(LiveFormat f, const float* x, int64_t n);

// ggml's dequantizer (to_float) on those bytes: n floats, or nothing when ggml has none (Q8_1:
// an activation format, never dequantized by ggml).
std::vector<float> ggml_live_dequantize(LiveFormat f, const std::vector<uint8_t>& blocks, int64_t n);

// ggml's CUDA backend (when the ggml build has one, ggml_live_cuda.cpp): the median time in µs of
// one MUL_MAT of Q4_0 or Q4_K weights (`weights`) and F32 activations, C[M][N] = A[M][K]·W[N][K]^T,
// activation quantization included, weights rotated through `copies` copies; NaN when the backend
// cannot run it (or for another format).
double ggml_live_cuda_mul_mat_us(LiveFormat weights, int64_t M, int64_t N, int64_t K, int copies, int iters, int warmup,
                                 uint64_t seed);
