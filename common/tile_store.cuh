// tile_store.cuh - writing a thread's outputs back to a row-major C[M][N].
#pragma once

// Writes four consecutive outputs C[m][n..n+3]: one 16-byte store when the row allows it
// (N % 4 == 0 keeps it aligned, n + 3 < N keeps it inside), element by element otherwise.
__device__ __forceinline__ void store_c_quad(float* C, int M, int N, int m, int n, float4 v) {
    if (m >= M) return;
    float* dst = C + (size_t)m * N + n;
    if (N % 4 == 0 && n + 3 < N) {
        *reinterpret_cast<float4*>(dst) = v;
        return;
    }
    const float vals[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
        if (n + j < N) dst[j] = vals[j];
}
