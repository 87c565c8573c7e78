// Host-only unit tests of common/: the checkers, the reference GEMM and its row sampling, the
// data generator, the option parser's accepting paths (its rejecting paths exit 2 and are tested
// through tests/cli_table.sh), the cold-L2 plan, grid limits, the GEMVs' shapes, the split-tail
// schedule, peaks and the architecture gate.
// Needs no GPU. Ends with "N passed, M failed".
#include "common.cuh"
#include "gemv_mma.cuh"
#include "gemv_resident.cuh"
#include "llama_times.h"
#include "reference_gemm.h"
#include "split_tail.cuh"
#include "ptx_fragment_tables.h"
#include "tolerance_canary.h"
#include "unit_test.h"

#include <algorithm>
#include <cstring>
#include <vector>


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
    // Nothing compared is not a pass (a reference that was never made, an empty row selection).
    EXPECT(!check_close("unit", got.data(), ref.data(), 0, Tolerance{1e9, 1e9}, 0, 0).pass);
    EXPECT(std::fabs(r.nmse - 1.0 / 39.0) < 1e-12);
    // The bound is inclusive: an error exactly at it passes, the next float above it fails.
    EXPECT(passes(1.5f, 1.0, Tolerance{0.0, 0.5}));
    EXPECT(!passes(std::nextafter(1.5f, 2.0f), 1.0, Tolerance{0.0, 0.5}));
    EXPECT(passes(1.25f, 1.0, Tolerance{0.25, 0.0}));  // the relative part alone, also inclusive
    // A non-finite reference is matched only by the same non-finite value: no infinity for a NaN,
    // no NaN for an infinity, whatever the tolerance.
    EXPECT(!passes(INFINITY, NAN, Tolerance{1e9, 1e9}));
    EXPECT(!passes(NAN, INFINITY, Tolerance{1e9, 1e9}));
    EXPECT(!passes(NAN, -INFINITY, Tolerance{1e9, 1e9}));
    EXPECT(passes(-INFINITY, -INFINITY, tol));
    // The scale is per element: element i is judged by scale[i], not by its neighbours'.
    const std::vector<float> got3 = {1.f, 1.f, 1.f};
    const std::vector<double> ref3 = {2.0, 2.0, 2.0}, scale3 = {10.0, 1000.0, 10.0};
    r = check_close("unit", got3.data(), ref3.data(), 3, Tolerance{0.0, 1e-2, scale3.data()}, 0, 0);
    EXPECT(!r.pass && r.bad == 2);
    EXPECT(r.max_scaled_err == 0.1);  // |1 - 2| / 10
    r = check_close("unit", got3.data() + 1, ref3.data() + 1, 1, Tolerance{0.0, 1e-2, scale3.data() + 1}, 0, 0);
    EXPECT(r.pass);
}

// The kernel tolerance of steps 1, 3 and 4 (kSumOrderTolerance) is tight: step 1's finest
// mistake, an FP32 GEMM whose inputs were rounded to TF32 (what a tensor-core "FP32" GEMM does in
// TF32 mode), must fail it at a lesson-like K, and pass a tolerance ten times looser.
static void test_tolerance_rejects_tf32_inputs() {
    const int64_t M = 4, N = 64, K = 4096;
    std::vector<float> A(M * K), W(N * K);
    fill_normal(A, 29, 1);
    fill_normal(W, 29, 2);
    auto to_tf32 = [](std::vector<float> x) {  // keep 10 mantissa bits, round to nearest
        for (float& v : x) {
            uint32_t u;
            std::memcpy(&u, &v, 4);
            u = (u + 0x1000u) & ~0x1FFFu;
            std::memcpy(&v, &u, 4);
        }
        return x;
    };
    const std::vector<float> A32 = to_tf32(A), W32 = to_tf32(W);
    const ReferenceRows ref = reference_gemm(A.data(), W.data(), M, N, K, reference_row_choice(M, N, K));
    const ReferenceRows tf32 = reference_gemm(A32.data(), W32.data(), M, N, K, reference_row_choice(M, N, K));
    const std::vector<float> got(tf32.c.begin(), tf32.c.end());
    expect_fine_canary("tf32", got.data(), ref.c.data(), ref.abs_sum.data(), got.size());
}

// Every fragment table of tests/ptx_fragment_tables.h is a one-to-one map onto the lanes'
// registers: each (lane, register, part) holds exactly one element.
template <class Slot>
static bool fragment_table_is_bijective(int rows, int cols, int regs, int parts, Slot slot) {
    std::vector<int> hits(32 * regs * parts, 0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const FragmentSlot s = slot(r, c);
            if (s.lane < 0 || s.lane >= 32 || s.reg < 0 || s.reg >= regs || s.part < 0 || s.part >= parts) return false;
            ++hits[(s.lane * regs + s.reg) * parts + s.part];
        }
    return std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
}

static void test_fragment_tables() {
    EXPECT(fragment_table_is_bijective(16, 16, 4, 2, m16n8k16_a_slot));
    EXPECT(fragment_table_is_bijective(16, 8, 2, 2, m16n8k16_b_slot));
    EXPECT(fragment_table_is_bijective(16, 8, 4, 1, m16n8_c_slot));
    EXPECT(fragment_table_is_bijective(16, 32, 4, 4, m16n8k32_a_slot));
    EXPECT(fragment_table_is_bijective(32, 8, 2, 4, m16n8k32_b_slot));
    // Spot checks against the ISA's figures: lane 0 holds a_0 = (0, 0); lane 5 (group 1, thread 1)
    // holds a_3 of m16n8k16 at (9, 3) and a_9 of m16n8k32 at (1, 21).
    const FragmentSlot a16 = m16n8k16_a_slot(9, 3), a32 = m16n8k32_a_slot(1, 21);
    EXPECT(a16.lane == 5 && a16.reg == 1 && a16.part == 1);
    EXPECT(a32.lane == 5 && a32.reg == 2 && a32.part == 1);
    const FragmentSlot c = m16n8_c_slot(9, 3);
    EXPECT(c.lane == 5 && c.reg == 3);
}

// check_bytes must see a difference anywhere, down to one nibble of the last byte.
static void test_check_bytes() {
    std::vector<uint8_t> a(72), b(72);
    for (size_t i = 0; i < a.size(); ++i) a[i] = b[i] = (uint8_t)(i * 37 + 11);
    EXPECT(check_bytes("unit", a.data(), b.data(), a.size(), 18, 0).pass);
    b.back() ^= 0x01;  // last byte, low bit
    CheckResult r = check_bytes("unit", a.data(), b.data(), a.size(), 18, 0);
    EXPECT(!r.pass && r.bad == 1);
    b.back() = a.back();
    b[40] = (uint8_t)(a[40] ^ 0x80);  // high nibble only
    r = check_bytes("unit", a.data(), b.data(), a.size(), 18, 0);
    EXPECT(!r.pass && r.bad == 1);
    EXPECT(check_bytes("unit", a.data(), b.data(), 40, 18, 0).pass);  // only the first n bytes count
    EXPECT(!check_bytes("unit", a.data(), b.data(), 0, 18, 0).pass);   // and none is not a pass
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
    // Sampled rows: the first and last are always there, in order, without repeats, and every
    // row position within a tile (each residue modulo kResidueSpan) is among them.
    for (int64_t m : {512, 700, 100000}) {
        const std::vector<int64_t> rows = reference_row_choice(m, 4096, 4096);
        EXPECT((int64_t)rows.size() < m && rows.front() == 0 && rows.back() == m - 1);
        EXPECT(std::is_sorted(rows.begin(), rows.end()) && std::adjacent_find(rows.begin(), rows.end()) == rows.end());
        std::vector<bool> residue(kResidueSpan, false);
        for (int64_t r : rows) residue[r % kResidueSpan] = true;
        EXPECT(std::all_of(residue.begin(), residue.end(), [](bool b) { return b; }));
    }
    // N past the reference's 64-column chunks, with a ragged last chunk: every column computed.
    const int64_t wide_n = 130;
    std::vector<float> wide_w(wide_n * K);
    fill_uniform(wide_w, 7, 3, -1.f, 1.f);
    const ReferenceRows wide = reference_gemm(A.data(), wide_w.data(), M, wide_n, K, reference_row_choice(M, wide_n, K));
    size_t wrong_columns = 0;
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < wide_n; ++n) {
            double sum = 0;
            for (int64_t k = 0; k < K; ++k) sum += (double)A[m * K + k] * wide_w[n * K + k];
            wrong_columns += !(std::fabs(sum - wide.c[m * wide_n + n]) <= 1e-12) || !(wide.abs_sum[m * wide_n + n] > 0);
        }
    EXPECT(wrong_columns == 0);
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
    // U(lo, hi) fills the whole range and nothing outside it.
    std::vector<float> u(1000);
    fill_uniform(u, 3, 1, -2.f, 6.f);
    const float lo = *std::min_element(u.begin(), u.end()), hi = *std::max_element(u.begin(), u.end());
    EXPECT(lo >= -2.f && lo < -1.9f && hi <= 6.f && hi > 5.9f);
}

static Options parse(std::vector<const char*> args, const ProgramInfo& info) {
    args.insert(args.begin(), "prog");
    return parse_options((int)args.size(), const_cast<char**>(args.data()), info);
}

static void test_parse_options() {
    const KernelInfo naive{"naive", ""}, fast{"fast", ""}, canary{"canary", "", KernelRole::Canary};
    ProgramInfo info{"prog", "unit test", "prog", 32, {naive, fast, canary}, {{"in", true, "input file"}}};
    Options o = parse({}, info);
    EXPECT(!o.has_shape && o.iters == 20 && o.kernels.empty() && o.wants(fast) && !o.wants(canary));
    o = parse({"--m=3", "--n", "5", "--k", "64", "--kernel", "fast,canary", "--seed", "9", "--check-only", "--in", "x.f32"}, info);
    EXPECT(o.has_shape && o.m == 3 && o.n == 5 && o.k == 64 && o.seed == 9 && o.check_only);
    EXPECT(o.wants(fast) && o.wants(canary) && !o.wants(naive));
    EXPECT(o.was_given("seed") && o.was_given("in") && !o.was_given("iters"));
    EXPECT(o.extra_value("in") && *o.extra_value("in") == "x.f32" && !o.has("out"));
    EXPECT(split_commas("a,b").size() == 2 && split_commas("a").size() == 1);
}

// Exercise slots: not run by default; --exercises adds exercises (not solutions); naming an
// exercise brings the lesson kernel it practises along; a stub's run carries its file.
static void test_exercise_roles() {
    const KernelInfo lesson{"tiled", ""}, other{"other", ""};
    const KernelInfo ex{"ex1", "", KernelRole::Exercise, "tiled", "step/exercises/ex1.cuh", false};
    const KernelInfo solution{"ex1_solution", "", KernelRole::Solution, "tiled"};
    const KernelInfo written{"ex2", "", KernelRole::Exercise, "other", "step/exercises/ex2.cuh", true};
    ProgramInfo info{"prog", "unit test", "prog", 1, {lesson, other, ex, solution, written}, {}};
    Options o = parse({}, info);
    EXPECT(o.wants(lesson) && !o.wants(ex) && !o.wants(solution));
    o = parse({"--exercises"}, info);
    EXPECT(o.exercises && o.wants(lesson) && o.wants(ex) && o.wants(written) && !o.wants(solution));
    o = parse({"--kernel", "ex1"}, info);
    EXPECT(o.wants(ex) && o.wants(lesson) && !o.wants(other) && !o.wants(solution) && !o.wants(written));
    o = parse({"--kernel", "ex1_solution"}, info);
    EXPECT(o.wants(solution) && o.wants(lesson) && !o.wants(ex));
    EXPECT(kernel_run_for(ex).unsolved_exercise == "step/exercises/ex1.cuh");
    EXPECT(kernel_run_for(written).unsolved_exercise.empty() && kernel_run_for(solution).unsolved_exercise.empty());
    EXPECT(kernel_run_for(lesson).name == "tiled");
}

// A GPU with the H200's L2, for the host-side helpers that read only its fields.
static Gpu fake_gpu(int cc, int code_sm, bool code_specific) {
    Gpu g;
    g.cc = cc;
    g.code_sm = code_sm;
    g.code_arch_specific = code_specific;
    g.sms = 132;
    g.clock_ghz = 1.98;
    g.l2_bytes = 60 * 1000 * 1000;
    return g;
}

static void test_l2_rotation() {
    const Gpu g = fake_gpu(90, 90, false);
    L2Rotation r = plan_l2_rotation(g, 72 * 1000 * 1000, true);  // step 1 at M = 512
    EXPECT(r.copies == 3 && r.cold);
    r = plan_l2_rotation(g, 500 * 1000 * 1000, true);  // bigger than L2: still two copies
    EXPECT(r.copies == 2 && r.cold);
    r = plan_l2_rotation(g, 1000, true);  // tiny: the copy cap cannot reach 3x L2
    EXPECT(r.copies == kMaxL2Copies && !r.cold);
    r = plan_l2_rotation(g, 72 * 1000 * 1000, false);  // --check-only
    EXPECT(r.copies == 1);
}

static void test_launch_limits() {
    EXPECT(grid_limit_reason('y', 65535).empty() && !grid_limit_reason('y', 65536).empty());
    EXPECT(grid_limit_reason('x', 1 << 30).empty());
    EXPECT(first_reason({"", "b", "c"}) == "b" && first_reason({"", ""}).empty());
    auto count_for = [](int64_t m) {
        int got = 0;
        with_count_up_to<8>(m, [&](auto count) { got = decltype(count)::value; });
        return got;
    };
    EXPECT(count_for(1) == 1 && count_for(3) == 3 && count_for(8) == 8 && count_for(9) == 8);
}

// The resident GEMV's CTA: one thread per K-block, whole warps, at most 512 threads (K <= 16384).
static void test_gemv_resident_shape() {
    EXPECT(gemv_resident_threads(32) == 32 && gemv_resident_threads(4128) == 160 && gemv_resident_threads(16384) == 512);
    EXPECT(gemv_resident_why_not(1, 16384, 8).empty() && gemv_resident_why_not(8, 32, 8).empty());
    EXPECT(!gemv_resident_why_not(1, 16416, 8).empty());  // 513 K-blocks
    EXPECT(!gemv_resident_why_not(9, 4096, 8).empty() && !gemv_resident_why_not(3, 4096, 2).empty());
}

// The tensor-core GEMV's slices: the warps of a CTA (at most 16, at most one per 64-value chunk)
// cover K's chunks once, in order, each warp at least one, none longer than the staged maximum.
static void test_gemv_mma_slices() {
    for (int chunks = 1; chunks <= 300; ++chunks) {
        const int K = chunks * gemv_mma::kChunkK, warps = gemv_mma_warps(K);
        EXPECT(warps == std::min(chunks, gemv_mma::kMaxWarps));
        int next = 0, longest = 0;
        for (int w = 0; w < warps; ++w) {
            const Slice s(w, warps, chunks);
            EXPECT(s.first == next && s.count >= 1);
            next = s.first + s.count;
            longest = std::max(longest, s.count);
        }
        EXPECT(next == chunks && longest == gemv_mma_max_chunks(K));
    }
}

static void test_peaks_and_arch_gate() {
    EXPECT(ops_per_clock_per_sm(90, Pipe::Fp32) == 256 && ops_per_clock_per_sm(80, Pipe::Fp32) == 128);
    EXPECT(ops_per_clock_per_sm(90, Pipe::Int8Tensor) == 2 * ops_per_clock_per_sm(90, Pipe::Fp16Tensor));
    EXPECT(ops_per_clock_per_sm(70, Pipe::Int8Tensor) == 0 && ops_per_clock_per_sm(60, Pipe::Dp4a) == 0);
    const Gpu h200 = fake_gpu(90, 90, false);
    EXPECT(std::fabs(h200.peak_tera(Pipe::Fp32) - 66.9) < 0.1);  // 132 x 256 x 1.98 GHz
    // NVIDIA's datasheet numbers for the H200 are the same formula at 1.83 GHz: 989 and 1979.
    const Datasheet sheet = datasheet_of("NVIDIA H200");
    EXPECT(std::fabs(h200.peak_tera(Pipe::Fp16Tensor, sheet.clock_ghz) - 989.4) < 1.0);
    EXPECT(std::fabs(h200.peak_tera(Pipe::Int8Tensor, sheet.clock_ghz) - 1978.9) < 1.0);
    EXPECT(sheet.hbm_tbs == 4.8 && datasheet_of("NVIDIA A100-SXM4-80GB").clock_ghz == 0);
    EXPECT(arch_shortfall(h200, {}).empty() && arch_shortfall(h200, {80, false}).empty());
    EXPECT(!arch_shortfall(h200, {100, false}).empty());               // the GPU is too old
    EXPECT(!arch_shortfall(h200, {90, true}).empty());                 // sm_90 code, sm_90a needed
    EXPECT(arch_shortfall(fake_gpu(90, 90, true), {90, true}).empty());
    EXPECT(!arch_shortfall(fake_gpu(90, 75, false), {80, false}).empty());  // sm_75 PTX on an H200
    EXPECT(!arch_shortfall(fake_gpu(100, 100, true), {90, true}).empty());  // sm_90a runs on sm_90 only
}

// llama_times.h reads llama.cpp's recorded times; a line it cannot read is skipped, not guessed.
static void test_llama_times() {
    char path[] = "/tmp/llama_times_XXXXXX";
    const int fd = mkstemp(path);
    EXPECT(fd >= 0);
    FILE* f = fdopen(fd, "w");
    std::fprintf(f, "M,N,K,time_us,gpu,date,ggml_commit,source\n"
                    "1,4096,14336,14.20,NVIDIA H200,2026-11-29,d99724f2,perf\n"
                    "x,4096,4096,7.78,NVIDIA H200,2026-11-29,d99724f2,perf\n"
                    "512,4096,4096,93.73,NVIDIA H200,2026-11-29,d99724f2\n"
                    "16,4096\n");
    std::fclose(f);
    const std::vector<LlamaTime> rows = read_llama_times(path);
    std::remove(path);
    EXPECT(rows.size() == 2);
    const LlamaTime* t = find_llama_time(rows, 512, 4096, 4096);
    EXPECT(t && t->time_us == 93.73 && t->gpu == "NVIDIA H200" && t->ggml_commit == "d99724f2");
    EXPECT(find_llama_time(rows, 4096, 4096, 1) == nullptr);
    EXPECT(read_llama_times("/nonexistent/llama.csv").empty());

    // With a weights column: Q4_0 and Q4_K at one shape are two times, each found by its format.
    char path2[] = "/tmp/llama_times_XXXXXX";
    FILE* g = fdopen(mkstemp(path2), "w");
    std::fprintf(g, "M,N,K,weights,time_us,gpu,date,ggml_commit,source\n"
                    "1,4096,14336,q4_0,14.20,NVIDIA H200,2026-11-29,d99724f2,perf\n"
                    "1,4096,14336,q4_k,16.13,NVIDIA H200,2026-12-01,d99724f2,perf\n");
    std::fclose(g);
    const std::vector<LlamaTime> both = read_llama_times(path2);
    std::remove(path2);
    const LlamaTime* q4_0 = find_llama_time(both, 1, 4096, 14336);
    const LlamaTime* q4_k = find_llama_time(both, 1, 4096, 14336, "q4_k");
    EXPECT(q4_0 && q4_0->time_us == 14.20 && q4_k && q4_k->time_us == 16.13);
    EXPECT(find_llama_time(both, 1, 4096, 14336, "q6_k") == nullptr);
}

// The schedule that splits a partial last wave in K (step 4's rung 16): split where the model
// says it pays, as at the H200's summit shapes (132 SMs, 32 stages; a grid of fewer tiles than
// SMs is one partial wave), and, for any shape, the
// CTAs cover every stage of every tile once: a whole tile all of K, a tail tile's pieces their
// stages in order, none empty.
static void test_split_tail() {
    const SplitTail n14336 = plan_split_tail(448, 132, 32);  // M = 512, N = 14336: 3 waves and 52 tiles
    EXPECT(n14336.parts == 2 && n14336.whole == 396 && n14336.tail == 52 && n14336.ctas() == 500);
    EXPECT(plan_split_tail(128, 132, 32).parts == 1);   // M = 512, N = 4096: one wave
    EXPECT(plan_split_tail(1024, 132, 32).parts == 1);  // M = 4096: the last wave (100 tiles) too full to gain
    EXPECT(plan_split_tail(264, 132, 32).parts == 1);   // whole waves
    EXPECT(plan_split_tail(132, 132, 32).parts == 1);   // one whole wave
    const SplitTail m128 = plan_split_tail(32, 132, 32);  // M = 128, N = 4096: a quarter of a wave
    EXPECT(m128.parts == 4 && m128.whole == 0 && m128.tail == 32 && m128.ctas() == 128);
    EXPECT(plan_split_tail(134, 132, 4).parts == 4);    // the tests' 129 x 8500 x 512: pieces of one stage
    for (int sms : {1, 3, 132})
        for (int k_steps : {1, 2, 6, 32})
            for (int tiles = 1; tiles <= 600; tiles += 7) {
                const SplitTail s = plan_split_tail(tiles, sms, k_steps);
                EXPECT(s.parts >= 1 && s.parts <= std::min(kMaxSplitParts, k_steps) && s.whole + s.tail == tiles);
                EXPECT((size_t)s.tail * s.parts * 64 <= split_tail_floats(sms, 64));  // the workspace holds every piece
                std::vector<int> next(tiles, 0);
                for (int cta = 0; cta < s.ctas(); ++cta) {
                    const SplitWork w = split_work(s, cta);
                    const bool in_range = w.tile >= 0 && w.tile < tiles;
                    EXPECT(in_range && (w.piece < 0) == (w.tile < s.whole));
                    if (!in_range) continue;
                    EXPECT(w.k_begin == next[w.tile] && w.k_end > w.k_begin);
                    next[w.tile] = w.k_end;
                }
                EXPECT(std::all_of(next.begin(), next.end(), [&](int k) { return k == k_steps; }));
            }
}

int main() {
    test_check_close();
    test_check_bytes();
    test_tolerance_rejects_tf32_inputs();
    test_fragment_tables();
    test_l2_rotation();
    test_launch_limits();
    test_gemv_resident_shape();
    test_gemv_mma_slices();
    test_split_tail();
    test_peaks_and_arch_gate();
    test_reference_gemm();
    test_data();
    test_parse_options();
    test_exercise_roles();
    test_llama_times();
    return unit_test_summary();
}
