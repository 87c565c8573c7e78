// Exercise 1 (step 5): a new compatibility check, Q8_0 dequantization bit for bit. Practises
// level 2: compare what our code makes with what ggml made, byte for byte (here, float for float).
//
// Brief: ggml dequantized its Q8_0 blocks into deq_q8_0.f32 (GoldenCase::deq_q8_0). Dequantize
// the same blocks (GoldenCase::q8_0) with our code (dequantize_cpu in common/ggml_quants_tensor.h)
// and return how many floats differ in their bits (count_float_diffs in common/golden.h: two NaNs
// count as equal). 0 means compatible.
// Run it:   build/step5_llama_compare --cpu-only --kernel ex1     (make exercise STEP=5 EX=1 on a GPU machine)
// Then break it on purpose: what does the check say if dequantize_row_q8 multiplies by the fp16 d
// rounded to bfloat16?
// Set kEx1Written to true once your check is written: a FAIL is then an incompatibility, not the stub.
#pragma once

#include "../../common/ggml_quants_tensor.h"
#include "../../common/golden.h"

#include <cstddef>
#include <cstdint>

constexpr bool kEx1Written = false;
constexpr size_t kUnsolvedCheck = SIZE_MAX;  // what a stub returns

// The number of dequantized values that differ from ggml's for this case.
inline size_t exercise1_dequant_q8_0_diffs(const GoldenCase& c) {
    (void)c;
    // TODO: dequantize c.q8_0 with dequantize_cpu and compare with c.deq_q8_0.
    return kUnsolvedCheck;
}
