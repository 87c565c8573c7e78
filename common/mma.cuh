// mma.cuh - the warp-level tensor-core instructions of steps 3 and 4 (sm_80+ encodings), each
// a thin wrapper around one PTX instruction. Fragment layouts: PTX ISA, "Matrix Fragments for
// mma.m16n8k16" (w4a16_formats.h spells out the A layout where it repacks weights into it).
// Below sm_80 these compile to nothing: kernels that use them are gated at run time.
#pragma once

#include "shared_address.cuh"

#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// half2 as the 32-bit register mma.sync takes, and back.
__device__ __forceinline__ uint32_t half2_bits(__half2 h) { return *reinterpret_cast<uint32_t*>(&h); }
__device__ __forceinline__ __half2 bits_half2(uint32_t u) { return *reinterpret_cast<__half2*>(&u); }

// D = A·B + C for one 16x8 tile: A 16x16 fp16 (4 registers), B 16x8 fp16 (2), C and D fp32 (4).
__device__ __forceinline__ void mma_m16n8k16_f16_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// Four 8x8 fp16 matrices from shared memory; lane l gives the address of row l % 8 of matrix
// l / 8 and receives, in register i, row l / 4 and columns 2(l % 4), 2(l % 4) + 1 of matrix i.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem_row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t addr = shared_address(smem_row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
#endif
}

// Two 8x8 fp16 matrices: lanes 0-15 give the row addresses (lane l: row l % 8 of matrix l / 8).
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void* smem_row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const uint32_t addr = shared_address(smem_row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
#endif
}

// D = A·B + D for one 16x8 tile in FP32 from TF32 inputs (FP32 bit patterns; the instruction reads
// their sign, exponent and top 10 mantissa bits): A 16x4 (2 registers: row g and g + 8, column t of
// lane (g, t) = (l / 4, l % 4)), B 4x8 (1: row t, column g), D as for the other tiles.
__device__ __forceinline__ void mma_m16n8k4_tf32_f32(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b));
#endif
}

// The outer product of a column u (16 rows) and a row v (8 columns), times 4, as one 16x8 tile in
// the C layout: D[r][t] = 4·u[r]·v[t]. The lane passes u of its rows g and g + 8 and v of column
// g (which the mma hands to the lanes that hold column t). It is m16n8k4 with u in all four
// columns of A and v in all four rows of B, so D sums four copies of each product: one instruction
// per tile where an FMUL per element costs four per lane. Exact for u and v that are fp16 values
// widened to FP32 (step 4's scales): TF32 keeps their 10 mantissa bits, each product has at most
// 22 significant bits, and 2, 3 and 4 times it at most 24, all within FP32's. test_gpu_driver
// checks that for every pair of finite fp16 values.
__device__ __forceinline__ void outer_product_times4(float (&d)[4], float u_g, float u_g8, float v_g) {
    d[0] = d[1] = d[2] = d[3] = 0.f;
    const uint32_t a[2] = {__float_as_uint(u_g), __float_as_uint(u_g8)};
    mma_m16n8k4_tf32_f32(d, a, __float_as_uint(v_g));
}

// The same outer product for a column u whose values have up to 22 significant bits (step 4's
// d·sc_j of Q4_K: 17), which TF32 would round: each u is split into its top 11 significant bits
// (columns 0 and 2 of A) and the rest (columns 1 and 3; at most 11 bits more), both TF32 numbers,
// so D[r][t] = 2·u[r]·v[t] from four exact products, rounded once by the tensor core (within an
// ulp of an FP32 multiply, not always its bits). Lane (g, t) brings the part of column t.
__device__ __forceinline__ void outer_product_split_times2(float (&d)[4], float u_g, float u_g8, float v_g) {
    const bool rest = threadIdx.x % 2 == 1;  // column t = lane % 4 is odd
    auto part = [rest](float u) {
        const float top = __uint_as_float(__float_as_uint(u) & 0xFFFFE000u);  // 1 + 10 mantissa bits
        return __float_as_uint(rest ? u - top : top);
    };
    d[0] = d[1] = d[2] = d[3] = 0.f;
    const uint32_t a[2] = {part(u_g), part(u_g8)};
    mma_m16n8k4_tf32_f32(d, a, __float_as_uint(v_g));
}

// The same with k = 8: A 16x8 (4 registers: rows g, g + 8 at column t, then rows g, g + 8 at
// column t + 4), B 8x8 (2: rows t and t + 4, column g).
__device__ __forceinline__ void mma_m16n8k8_tf32_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// D = A·B + D for one 16x8 tile of int32: A 16x32 int8 (4 registers of 4), B 32x8 int8 (2), D int32 (4).
__device__ __forceinline__ void mma_m16n8k32_s8_s32(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
