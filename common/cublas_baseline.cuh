// cublas_baseline.cuh - cuBLAS, the library baseline every step times beside its own kernels.
//
// cuBLAS is column-major. Our row-major C[M,N] = A[M,K] · W[N,K]^T is, read column-major, the
// matrix C^T[N,M] = W · A^T, where W (row-major [N,K]) is a column-major [K,N] used with op T and
// A a column-major [K,M] used as it is: hence (OP_T, OP_N, N, M, K) and leading dimensions K, K, N.
#pragma once

#include "errors.cuh"

#include <cublas_v2.h>

// A handle on `stream` in the default math mode: SGEMM stays true FP32 (no TF32; step 1's
// canary_tf32_inputs shows what the check would say about TF32).
inline cublasHandle_t make_cublas_handle(cudaStream_t stream) {
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    CUBLAS_CHECK(cublasSetStream(h, stream));
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    return h;
}

// The handle every baseline row launches with: made by the first call (a row's first launch is
// its untimed check run) on that call's stream, the one stream a step runs all its rows on, and
// destroyed when the program ends. A later call on another stream moves it there.
inline cublasHandle_t cublas_on(cudaStream_t stream) {
    struct Owner {
        cublasHandle_t handle;
        cudaStream_t stream;
        ~Owner() { cublasDestroy(handle); }
    };
    static Owner owner{make_cublas_handle(stream), stream};
    if (stream != owner.stream) {
        CUBLAS_CHECK(cublasSetStream(owner.handle, stream));
        owner.stream = stream;
    }
    return owner.handle;
}

// C = A · W^T in FP32, row-major, as above.
inline void cublas_sgemm_rowmajor(cublasHandle_t h, const float* A, const float* W, float* C, int M, int N, int K) {
    const float one = 1.f, zero = 0.f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, K, A, K, &zero, C, N));
}
