// reference_gemm.h - the CPU answer every GPU kernel is checked against.
//
// C[m][n] = sum_k A[m][k] * W[n][k], accumulated in double on all host cores. Beside each output
// it keeps sum_k |A[m][k] * W[n][k]|: floating-point summation error grows with that sum, so it
// is the natural scale for "how wrong is this element" (a correct FP32 kernel stays near
// 1e-7 of it; one missing product of a K=4096 dot is ~2.4e-4 of it).
//
// Large problems are verified on a sample of rows (reference_row_choice); the program says so
// when it samples.
// Steps 3-5 pass dequantized weights, so "the same quantized data" is what gets compared.
#pragma once

#include "parallel_for.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

struct ReferenceRows {
    std::vector<int64_t> rows;   // which rows of C were computed
    std::vector<double> c;       // rows.size() x N
    std::vector<double> abs_sum; // rows.size() x N: sum of |products|
    bool sampled = false;        // true when rows is a subset of 0..M-1
};

// Beyond this many multiply-adds the reference samples rows (a few seconds on 2 cores).
constexpr int64_t kReferenceBudget = int64_t(1) << 30;
// Sampled rows cover every residue modulo this many rows: a bug that hits only one row of a
// tile (row 7 of every 16, say) is then always in the sample. 128 is the tallest tile we use.
constexpr int64_t kResidueSpan = 128;

// All rows when the budget allows; otherwise the first and the last (edge tiles are where bugs
// live) and rows spread evenly between, each nudged within its stretch of kResidueSpan rows so
// that together they take every residue modulo kResidueSpan. Sorted, no repeats.
inline std::vector<int64_t> reference_row_choice(int64_t M, int64_t N, int64_t K, int64_t budget = kReferenceBudget) {
    const int64_t per_row = std::max<int64_t>(1, N * K);
    const int64_t max_rows = std::max<int64_t>(kResidueSpan + 2, budget / per_row);
    std::vector<int64_t> rows;
    if (M <= max_rows) {
        for (int64_t m = 0; m < M; ++m) rows.push_back(m);
        return rows;
    }
    rows = {0, M - 1};
    const int64_t spread = max_rows - 2;
    for (int64_t i = 0; i < spread; ++i) {
        const int64_t anchor = (i + 1) * (M - 1) / (spread + 1);
        int64_t row = anchor - anchor % kResidueSpan + i % kResidueSpan;
        if (row >= M) row -= kResidueSpan;
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

inline ReferenceRows reference_gemm(const float* A, const float* W, int64_t M, int64_t N, int64_t K,
                                    std::vector<int64_t> rows) {
    ReferenceRows r;
    r.sampled = (int64_t)rows.size() < M;
    r.rows = std::move(rows);
    const int64_t R = (int64_t)r.rows.size();
    r.c.assign(R * N, 0.0);
    r.abs_sum.assign(R * N, 0.0);
    // One task per (row, 64-column chunk) keeps all cores busy even for a single row.
    constexpr int64_t kChunk = 64;
    const int64_t chunks = (N + kChunk - 1) / kChunk;
    parallel_for(R * chunks, [&](int64_t task) {
        const int64_t ri = task / chunks, n0 = (task % chunks) * kChunk;
        const float* a = A + r.rows[ri] * K;
        for (int64_t n = n0; n < std::min(N, n0 + kChunk); ++n) {
            const float* w = W + n * K;
            double sum = 0, abs_sum = 0;
            for (int64_t k = 0; k < K; ++k) {
                double p = (double)a[k] * (double)w[k];
                sum += p;
                abs_sum += std::fabs(p);
            }
            r.c[ri * N + n] = sum;
            r.abs_sum[ri * N + n] = abs_sum;
        }
    });
    return r;
}

// "every row", or "R of M rows (...)", for the line a step prints about its reference.
inline std::string describe_rows(const ReferenceRows& r, int64_t M) {
    if (!r.sampled) return "every row";
    return std::to_string(r.rows.size()) + " of " + std::to_string(M) + " rows (first, last, and spread between so " +
           "that every row position within a " + std::to_string(kResidueSpan) + "-row tile is checked)";
}

// The chosen rows of a row-major [M, N] result, packed, to compare against ReferenceRows::c.
template <class T>
std::vector<T> gather_rows(const std::vector<T>& full, int64_t N, const std::vector<int64_t>& rows) {
    std::vector<T> out(rows.size() * N);
    for (size_t i = 0; i < rows.size(); ++i)
        std::copy(full.begin() + rows[i] * N, full.begin() + (rows[i] + 1) * N, out.begin() + i * N);
    return out;
}
