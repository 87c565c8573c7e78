// tolerance_canary.h - a fine mistake against the kernel tolerance (check.h, kSumOrderTolerance),
// for the CPU tests of steps 1, 3 and 4: it must fail the tolerance and pass ten times it, which
// shows the tolerance tight (loosened tenfold, the test fails).
#pragma once

#include "../common/check.h"
#include "unit_test.h"

#include <cstdio>

// got: the canary's outputs; ref and abs_sum: the reference and Σ|a·w| of each output.
inline void expect_fine_canary(const char* name, const float* got, const double* ref, const double* abs_sum, size_t n) {
    const CheckResult tight = check_close(name, got, ref, n, Tolerance{0.0, kSumOrderTolerance, abs_sum}, 0, 0);
    const CheckResult loose = check_close(name, got, ref, n, Tolerance{0.0, 10 * kSumOrderTolerance, abs_sum}, 0, 0);
    std::printf("  canary %s: max err/sum|aw| %.2e (tolerance %.0e), %zu of %zu outputs over it\n", name, tight.max_scaled_err,
                kSumOrderTolerance, tight.bad, tight.checked);
    EXPECT(!tight.pass);
    EXPECT(loose.pass);
}
