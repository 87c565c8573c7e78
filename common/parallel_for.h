// parallel_for.h - the host's cores, for the CPU work of every step: the reference GEMM, the
// quantizers and the repacks of whole matrices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

inline unsigned reference_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs body(i) for i in [0, count) on all cores.
template <class Body>
inline void parallel_for(int64_t count, Body body) {
    unsigned nthreads = (unsigned)std::min<int64_t>(reference_threads(), std::max<int64_t>(1, count));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nthreads; ++t)
        pool.emplace_back([=] {
            for (int64_t i = t; i < count; i += nthreads) body(i);
        });
    for (auto& th : pool) th.join();
}

// A row-major rows x k matrix through a row quantizer of ggml's shape, quantize_row(x, y, k) (k a
// multiple of the block's VALUES), rows in parallel: the blocks, row after row.
template <class Block, int64_t VALUES, class RowQuantizer>
inline std::vector<Block> quantize_rows(const std::vector<float>& x, int64_t rows, int64_t k, RowQuantizer quantize_row) {
    std::vector<Block> q((size_t)(rows * k / VALUES));
    parallel_for(rows, [&](int64_t r) { quantize_row(&x[r * k], &q[r * k / VALUES], k); });
    return q;
}
