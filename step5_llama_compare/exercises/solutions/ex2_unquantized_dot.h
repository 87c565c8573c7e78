// Solution of exercise 2 (step 5): variant 7, the unquantized dot in float64, in order
// (exercises/ex2_unquantized_dot.h).
#pragma once

#include "../../../common/golden.h"
#include "../ex2_unquantized_dot.h"

#include <cmath>

inline size_t exercise2_solution_unquantized_dot_diffs(const GoldenCase& c) {
    size_t diffs = 0;
    for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < c.rows; ++j) {
            double sum = 0;
            for (int64_t k = 0; k < c.k; ++k) sum += (double)c.x[i * c.k + k] * (double)c.x[j * c.k + k];
            const double recorded = c.dots[(i * c.rows + j) * 8 + 7];
            diffs += !((std::isnan(sum) && std::isnan(recorded)) || sum == recorded);
        }
    return diffs;
}
