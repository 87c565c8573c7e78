// Exercise 2 (step 5): a new compatibility check, the unquantized dot product (dots.f64, v7).
// Practises level 3, and what "bit for bit" takes: the same inputs, the same precision and the
// same order of additions.
//
// Brief: ggml's golden generator recorded, for every pair of rows (i, j) of x.f32, the float64
// sum over k of x[i][k]·x[j][k], added in order k = 0, 1, ... (variant 7 of dots.f64, at
// c.dots[(i * c.rows + j) * 8 + 7]). Recompute each from c.x and return how many differ in any
// bit (two NaNs count as equal).
// Run it:   build/step5_llama_compare --cpu-only --kernel ex2
// Then try summing in float32, or in pairs: how many values still match, and why?
// Set kEx2Written to true once your check is written: a FAIL is then an incompatibility, not the stub.
#pragma once

#include "../../common/golden.h"
#include "ex1_dequant_q8_0.h"  // kUnsolvedCheck

constexpr bool kEx2Written = false;

inline size_t exercise2_unquantized_dot_diffs(const GoldenCase& c) {
    (void)c;
    // TODO: for each (i, j), the float64 sum in order; count those that differ from v7.
    return kUnsolvedCheck;
}
