// check.h - is a result right? NaN-safe comparison against a reference, and byte comparison.
//
// Element i passes when |got - ref| <= atol * scale[i] + rtol * |ref|, written as !(err <= bound)
// so that a NaN fails. scale is optional (nullptr = 1). A non-finite reference passes only when
// got is the same non-finite value (both NaN, or the same infinity). The first few mismatches
// are printed with their position, the value got and the value expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

// The kernel tolerance of steps 1, 3 and 4, on the error |got - ref| / Σ_k |a_k·w_k| against a
// float64 reference on the same (quantized) inputs (reference_gemm.h): what is left there is FP32
// summation order, ~2e-7 at any K. The tolerance sits a decade above that and below the finest
// mistakes the tests plant, each measured on the CPU in its step's unit test: TF32 inputs (step 1,
// ~2e-5), the FP32 instead of the fp16-rounded group-128 weight (step 3, ~1e-5), a per-block
// d_w·d_a rounded to fp16 (step 4, ~1e-5). Loosen it past those and those tests fail.
constexpr double kSumOrderTolerance = 3e-6;

struct Tolerance {
    double rtol = 0;
    double atol = 0;
    const double* scale = nullptr;
};

struct CheckResult {
    bool pass = true;
    size_t checked = 0, bad = 0;
    double max_abs_err = 0;
    double max_scaled_err = 0;  // max of |got - ref| / scale (or / 1)
    double nmse = 0;            // sum (got - ref)^2 / sum ref^2 over finite references
};

// Normalized mean squared error of got against ref: sum (got - ref)^2 / sum ref^2, in double.
template <class Got, class Ref>
inline double nmse(const std::vector<Got>& got, const std::vector<Ref>& ref) {
    double err = 0, sum2 = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double e = (double)got[i] - (double)ref[i];
        err += e * e;
        sum2 += (double)ref[i] * (double)ref[i];
    }
    return err / sum2;
}

inline CheckResult check_close(const char* what, const float* got, const double* ref, size_t n, Tolerance tol,
                               size_t row_len = 0, int max_print = 5) {
    CheckResult r;
    double err2 = 0, ref2 = 0;
    r.checked = n;
    for (size_t i = 0; i < n; ++i) {
        double g = got[i], e = ref[i], s = tol.scale ? tol.scale[i] : 1.0;
        bool ok;
        double err = std::fabs(g - e);
        if (!std::isfinite(e)) {
            ok = (std::isnan(e) && std::isnan(g)) || g == e;
        } else {
            double bound = tol.atol * s + tol.rtol * std::fabs(e);
            ok = err <= bound;
            if (std::isfinite(err)) {
                err2 += err * err;
                ref2 += e * e;
                r.max_abs_err = std::max(r.max_abs_err, err);
                if (s > 0) r.max_scaled_err = std::max(r.max_scaled_err, err / s);
            } else {
                r.max_abs_err = r.max_scaled_err = INFINITY;
            }
            if (!ok && !std::isfinite(err)) err2 = INFINITY;
        }
        if (!ok) {
            if ((int)r.bad < max_print) {
                if (row_len)
                    std::printf("    %s mismatch at [%zu, %zu]: got %.9g, expected %.9g (|diff| %.3g, allowed %.3g)\n", what,
                                i / row_len, i % row_len, g, e, err, tol.atol * s + tol.rtol * std::fabs(e));
                else
                    std::printf("    %s mismatch at [%zu]: got %.9g, expected %.9g (|diff| %.3g, allowed %.3g)\n", what, i,
                                g, e, err, tol.atol * s + tol.rtol * std::fabs(e));
            }
            ++r.bad;
        }
    }
    r.pass = r.bad == 0 && n > 0;  // comparing nothing proves nothing: an empty check fails
    if (n == 0 && max_print > 0) std::printf("    %s: nothing to compare\n", what);
    r.nmse = ref2 > 0 ? err2 / ref2 : (err2 > 0 ? INFINITY : 0);
    if (r.bad > (size_t)max_print) std::printf("    %s: %zu of %zu elements wrong\n", what, r.bad, n);
    return r;
}

// Byte-exact comparison (quantized blocks): passes only when every byte matches; prints the
// first max_print differing bytes as (unit, byte within unit), and nothing when max_print is 0.
inline CheckResult check_bytes(const char* what, const void* got, const void* expected, size_t n, size_t unit_bytes,
                               int max_print = 5) {
    const uint8_t* g = static_cast<const uint8_t*>(got);
    const uint8_t* e = static_cast<const uint8_t*>(expected);
    CheckResult r;
    r.checked = n;
    for (size_t i = 0; i < n; ++i) {
        if (g[i] == e[i]) continue;
        if ((int)r.bad < max_print)
            std::printf("    %s: block %zu byte %zu: got 0x%02x, expected 0x%02x\n", what, i / unit_bytes, i % unit_bytes,
                        g[i], e[i]);
        ++r.bad;
    }
    r.pass = r.bad == 0 && n > 0;  // as check_close: an empty check fails
    if (n == 0 && max_print > 0) std::printf("    %s: nothing to compare\n", what);
    if (max_print > 0 && r.bad > (size_t)max_print) std::printf("    %s: %zu of %zu bytes differ\n", what, r.bad, n);
    return r;
}
