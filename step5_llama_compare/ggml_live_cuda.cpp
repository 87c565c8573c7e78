// ggml_live_cuda.cpp - step 5 times the reader's own ggml CUDA backend on the operation steps 3
// and 4 time: C = A·W^T with W in Q4_0 (or Q4_K) and A in F32, ggml's MUL_MAT, which quantizes A
// to Q8_1 itself, as llama.cpp runs it. Compiled only when the ggml build has libggml-cuda (CMake says so).
//
// Timed as our steps time themselves: one graph of back-to-back MUL_MATs whose weights rotate
// through `copies` copies (cold L2 when they span it), replayed `iters` times after `warmup`
// replays; each replay's wall time, from launch to the end of ggml_backend_graph_compute (which
// synchronizes), divided by the number of MUL_MATs; the median of the replays.
#include "ggml_live.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cuda.h"
#include "ggml.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

double ggml_live_cuda_mul_mat_us(LiveFormat weights, int64_t M, int64_t N, int64_t K, int copies, int iters, int warmup,
                                 uint64_t seed) {
    if (weights != LiveFormat::Q4_0 && weights != LiveFormat::Q4_K) return NAN;
    const ggml_type type = weights == LiveFormat::Q4_0 ? GGML_TYPE_Q4_0 : GGML_TYPE_Q4_K;
    ggml_backend_t backend = ggml_backend_cuda_init(0);
    if (!backend) return NAN;
    const int reps = std::max(copies, 32);  // MUL_MATs per graph: a replay lasts well beyond its launch
    const ggml_init_params params = {ggml_tensor_overhead() * (size_t)(copies + reps + 1) + ggml_graph_overhead_custom(reps, false),
                                     nullptr, /*no_alloc=*/true};
    ggml_context* ctx = ggml_init(params);
    ggml_tensor* a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);  // M rows of K: the activations
    std::vector<ggml_tensor*> w(copies);
    for (auto& t : w) t = ggml_new_tensor_2d(ctx, type, K, N);  // N rows of K: the weights
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, reps, false);
    for (int r = 0; r < reps; ++r) ggml_build_forward_expand(graph, ggml_mul_mat(ctx, w[r % copies], a));
    ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors(ctx, backend);

    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> x((size_t)(N * K));
    for (float& v : x) v = normal(rng);
    std::vector<uint8_t> q(ggml_row_size(type, K) * (size_t)N);
    ggml_quantize_chunk(type, x.data(), q.data(), 0, N, K, nullptr);
    for (ggml_tensor* t : w) ggml_backend_tensor_set(t, q.data(), 0, q.size());
    x.resize((size_t)(M * K));
    for (float& v : x) v = normal(rng);
    ggml_backend_tensor_set(a, x.data(), 0, x.size() * sizeof(float));

    std::vector<double> per_op;
    bool ok = true;
    for (int i = 0; i < warmup + iters && ok; ++i) {
        const auto start = std::chrono::steady_clock::now();
        ok = ggml_backend_graph_compute(backend, graph) == GGML_STATUS_SUCCESS;
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        if (i >= warmup) per_op.push_back(us / reps);
    }
    ggml_backend_buffer_free(buffer);
    ggml_free(ctx);
    ggml_backend_free(backend);
    if (!ok || per_op.empty()) return NAN;
    std::nth_element(per_op.begin(), per_op.begin() + per_op.size() / 2, per_op.end());
    return per_op[per_op.size() / 2];
}
