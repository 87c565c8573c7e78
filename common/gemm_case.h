// gemm_case.h - one problem a step runs: C[M,N] = A[M,K]·W[N,K]^T, with the name its table is
// printed under. Every kernel's why_not (kernel_spec.h) takes it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

// A problem size, with the name its table is printed under, and the kernels it exists for: each
// of those must run and PASS, or the run fails (a SKIP for the GPU's architecture excepted). A
// lesson case names its headline kernels; a test names, with --expect, the kernels its shape was
// chosen for, so that a kernel whose limits drift cannot quietly SKIP the shape that tests it.
struct GemmCase {
    std::string name;
    int64_t M, N, K;
    std::vector<std::string> expected = {};

    bool expects(const std::string& kernel) const {
        return std::find(expected.begin(), expected.end(), kernel) != expected.end();
    }
};
