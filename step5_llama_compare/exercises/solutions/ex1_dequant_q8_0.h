// Solution of exercise 1 (step 5): Q8_0 dequantization against ggml's, bit for bit
// (exercises/ex1_dequant_q8_0.h).
#pragma once

#include "../../../common/ggml_quants_tensor.h"
#include "../../../common/golden.h"
#include "../ex1_dequant_q8_0.h"

inline size_t exercise1_solution_dequant_q8_0_diffs(const GoldenCase& c) {
    return count_float_diffs(dequantize_cpu({QuantFormat::Q8_0, c.q8_0}), c.deq_q8_0);
}
