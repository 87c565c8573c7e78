// errors.cuh - exit codes, and the check that every CUDA, cuBLAS and cuRAND call goes through.
//
// A failed call prints what failed and where, then exits with its own code (3), so that a crash
// is never mistaken for a wrong answer (1) or for bad input (2).
#pragma once

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

enum ExitCode : int {
    EXIT_ALL_PASSED = 0,    // every check that ran passed
    EXIT_CHECK_FAILED = 1,  // a correctness check failed
    EXIT_USAGE = 2,         // bad command line or input
    EXIT_CUDA_ERROR = 3,    // a CUDA, cuBLAS or cuRAND call failed
    EXIT_NO_GPU = 77,       // CPU-side checks passed, no usable CUDA device (CTest SKIP_RETURN_CODE)
};

#define CUDA_CHECK(call)                                                                       \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "CUDA error %s (%s) at %s:%d: %s\n", cudaGetErrorName(err_),  \
                         cudaGetErrorString(err_), __FILE__, __LINE__, #call);                 \
            std::exit(EXIT_CUDA_ERROR);                                                        \
        }                                                                                      \
    } while (0)

// After a kernel launch: catches bad launch configurations at once (asynchronous faults show up
// at the next synchronizing call, which is itself checked).
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

// cuBLAS and cuRAND report a status enum; anything but `success` is fatal.
#define LIBRARY_STATUS_CHECK(call, success, library)                                           \
    do {                                                                                       \
        auto st_ = (call);                                                                     \
        if (st_ != (success)) {                                                                \
            std::fprintf(stderr, "%s error %d at %s:%d: %s\n", library, (int)st_, __FILE__,    \
                         __LINE__, #call);                                                     \
            std::exit(EXIT_CUDA_ERROR);                                                        \
        }                                                                                      \
    } while (0)
#define CUBLAS_CHECK(call) LIBRARY_STATUS_CHECK(call, CUBLAS_STATUS_SUCCESS, "cuBLAS")
#define CURAND_CHECK(call) LIBRARY_STATUS_CHECK(call, CURAND_STATUS_SUCCESS, "cuRAND")

// Bad input: one line on stderr that says what is wrong and how to fix it, then exit 2.
[[noreturn]] inline void usage_error(const char* fmt, ...) {
    std::fprintf(stderr, "error: ");
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fprintf(stderr, " (see --help)\n");
    std::exit(EXIT_USAGE);
}
