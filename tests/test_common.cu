// Host-only unit tests of common/: the checker, the reference GEMM, the data generator and the
// option parser's accepting paths (its rejecting paths exit 2 and are tested through
// tests/expect_exit.sh). Needs no GPU. Ends with "N passed, M failed".
#include "common.cuh"
#include "reference_gemm.h"
#include "unit_test.h"


static bool passes(float got, double ref, Tolerance tol) {
    return check_close("unit", &got, &ref, 1, tol, 0, /*max_print=*/0).pass;
}

static void test_check_close() {
    const Tolerance tol{1e-3, 1e-6, nullptr};
    EXPECT(passes(1.0f, 1.0, tol));
    EXPECT(passes(1.0005f, 1.0, tol));
    EXPECT(!passes(1.01f, 1.0, tol));
    EXPECT(!passes(NAN, 1.0, tol));                  // a NaN must fail ...
    EXPECT(!passes(NAN, 0.0, Tolerance{1e9, 1e9}));   // ... whatever the tolerance
    EXPECT(passes(NAN, NAN, tol));                    // expected NaN (overflowing ggml scales)
    EXPECT(!passes(1.0f, NAN, tol));
    EXPECT(passes(INFINITY, INFINITY, tol));
    EXPECT(!passes(-INFINITY, INFINITY, tol));
    EXPECT(!passes(INFINITY, 1.0, tol));
    // A per-element scale widens the absolute bound.
    double scale = 1000.0;
    EXPECT(passes(1.0f, 1.5, Tolerance{0.0, 1e-3, &scale}));
    EXPECT(!passes(1.0f, 3.0, Tolerance{0.0, 1e-3, &scale}));
    // Aggregates: one bad element among many is counted; NMSE is computed on finite references.
    std::vector<float> got = {1.f, 2.f, 3.f, 4.f};
    std::vector<double> ref = {1.0, 2.0, 3.0, 5.0};
    CheckResult r = check_close("unit", got.data(), ref.data(), got.size(), Tolerance{0.0, 0.5}, 2, 0);
    EXPECT(!r.pass && r.bad == 1 && r.max_abs_err == 1.0);
    EXPECT(std::fabs(r.nmse - 1.0 / 39.0) < 1e-12);
}

static void test_reference_gemm() {
    const int64_t M = 5, N = 7, K = 13;
    std::vector<float> A(M * K), W(N * K);
    fill_uniform(A, 7, 1, -1.f, 1.f);
    fill_uniform(W, 7, 2, -1.f, 1.f);
    ReferenceRows ref = reference_gemm(A.data(), W.data(), M, N, K, reference_row_choice(M, N, K));
    EXPECT(!ref.sampled && ref.rows.size() == (size_t)M);
    double worst = 0;
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double sum = 0, abs_sum = 0;
            for (int64_t k = 0; k < K; ++k) {
                sum += (double)A[m * K + k] * W[n * K + k];
                abs_sum += std::fabs((double)A[m * K + k] * W[n * K + k]);
            }
            worst = std::max(worst, std::fabs(sum - ref.c[m * N + n]));
            EXPECT(std::fabs(abs_sum - ref.abs_sum[m * N + n]) <= 1e-12 * abs_sum);
        }
    EXPECT(worst <= 1e-12);
    // Sampled rows: the first and last are always there, in order, without repeats.
    std::vector<int64_t> rows = reference_row_choice(512, 4096, 4096);
    EXPECT(rows.size() == 64 && rows.front() == 0 && rows.back() == 511);
    EXPECT(std::is_sorted(rows.begin(), rows.end()) && std::adjacent_find(rows.begin(), rows.end()) == rows.end());
    ReferenceRows part = reference_gemm(A.data(), W.data(), M, N, K, {1, 4});
    EXPECT(part.sampled && part.c[0 * N + 3] == ref.c[1 * N + 3] && part.c[1 * N + 6] == ref.c[4 * N + 6]);
    std::vector<float> full(M * N);
    for (size_t i = 0; i < full.size(); ++i) full[i] = (float)i;
    std::vector<float> packed = gather_rows(full, N, {1, 4});
    EXPECT(packed.size() == 2 * (size_t)N && packed[0] == N && packed[N] == 4 * N);
}

static void test_data() {
    std::vector<float> a(1001), b(1001), c(1001);
    fill_normal(a, 42, 1);
    fill_normal(b, 42, 1);
    fill_normal(c, 42, 2);
    EXPECT(a == b);  // same seed and stream: same data, bit for bit
    EXPECT(a != c);  // another stream: other data
    double mean = 0, var = 0;
    for (float v : a) mean += v;
    mean /= a.size();
    for (float v : a) var += (v - mean) * (v - mean);
    var /= a.size();
    EXPECT(std::fabs(mean) < 0.1 && std::fabs(var - 1.0) < 0.15);
    std::vector<float> u(1000);
    fill_uniform(u, 3, 1, -2.f, 2.f);
    EXPECT(*std::min_element(u.begin(), u.end()) >= -2.f && *std::max_element(u.begin(), u.end()) <= 2.f);
}

static Options parse(std::vector<const char*> args, const ProgramInfo& info) {
    args.insert(args.begin(), "prog");
    return parse_options((int)args.size(), const_cast<char**>(args.data()), info);
}

static void test_parse_options() {
    ProgramInfo info{"prog", "unit test", "prog", 32, {{"naive", ""}, {"fast", ""}}, {{"in", true, "input file"}}};
    Options o = parse({}, info);
    EXPECT(!o.has_shape && o.iters == 20 && o.kernels.empty() && o.wants("fast"));
    o = parse({"--m=3", "--n", "5", "--k", "64", "--kernel", "fast", "--iters", "7", "--check-only", "--in", "x.f32"}, info);
    EXPECT(o.has_shape && o.m == 3 && o.n == 5 && o.k == 64 && o.iters == 7 && o.check_only);
    EXPECT(o.wants("fast") && !o.wants("naive"));
    EXPECT(o.extra_value("in") && *o.extra_value("in") == "x.f32" && !o.has("out"));
    EXPECT(split_commas("a,b").size() == 2 && split_commas("a").size() == 1);
}

int main() {
    test_check_close();
    test_reference_gemm();
    test_data();
    test_parse_options();
    return unit_test_summary();
}
