// CPU tests of step 4's arithmetic (no GPU needed): the compensation identity, our references
// against the dot products in common/golden/ (ggml's, and the emulations of llama.cpp's CUDA
// formula), the nibble unpacking DP4A kernels use, and the weight repacking.
// Ends with "N passed, M failed".
#include "../common/check.h"
#include "../common/data.h"
#include "../common/ggml_quants.h"
#include "../common/golden.h"
#include "../common/q4_0_q8_1.h"
#include "../common/reference_gemm.h"
#include "../tests/ptx_fragment_tables.h"
#include "../tests/tolerance_canary.h"
#include "../tests/unit_test.h"
#include "compensation_demo.h"
#include "kernels/09_mma_int8.cuh"
#include "q4_k_mma_layout.h"
#include "w4a8_layout.cuh"
#include "w4a8_mma_layout.h"

#include <algorithm>

#ifndef QGF_GOLDEN_DIR
#define QGF_GOLDEN_DIR "common/golden"
#endif

// d_w·(d_a·sumi - 8·s) with s = d_a·Σq kept exact (not rounded to fp16) equals the dequantized
// dot product Σ (n-8)·d_w·q·d_a exactly in float64, block by block: every term is a product of
// at most 53 significant bits. Random blocks, some of them with extreme values.
static void test_compensation_identity() {
    constexpr int kBlocks = 20000;
    std::vector<float> w(kBlocks * 32), a(kBlocks * 32);
    fill_normal(w, 3, 1);
    fill_normal(a, 3, 2, 0.f, 5.f);
    for (size_t i = 0; i < w.size(); i += 61) w[i] *= 1000.f;
    std::vector<block_q4_0> wq(kBlocks);
    std::vector<block_q8_1> aq(kBlocks);
    quantize_row_q4_0_ref(w.data(), wq.data(), (int64_t)w.size());
    quantize_row_q8_1_ref(a.data(), aq.data(), (int64_t)a.size());
    size_t mismatches = 0;
    for (int b = 0; b < kBlocks; ++b) {
        const double d_w = fp16_to_fp32(wq[b].d), d_a = fp16_to_fp32(aq[b].d);
        int sum_q = 0;
        for (int j = 0; j < 32; ++j) sum_q += aq[b].qs[j];
        const double compensated = d_w * (d_a * block_sumi(wq[b], aq[b]) - 8.0 * (d_a * sum_q));
        double dequantized = 0;
        for (int j = 0; j < 16; ++j) {
            dequantized += ((wq[b].qs[j] & 0x0F) - 8) * d_w * (aq[b].qs[j] * d_a);
            dequantized += ((wq[b].qs[j] >> 4) - 8) * d_w * (aq[b].qs[j + 16] * d_a);
        }
        mismatches += compensated != dequantized;
    }
    EXPECT(mismatches == 0);
}

// Every golden case's recorded dot products (variants 0, 3, 4, 5, 6: count_golden_dots in
// common/q4_0_q8_1.h says which rule each follows), from ggml's own blocks.
static void test_golden_dots() {
    const std::vector<std::string> dirs = golden_case_dirs(QGF_GOLDEN_DIR);
    EXPECT(dirs.size() == 20);
    EXPECT(golden_manifest_problem(QGF_GOLDEN_DIR).empty());
    GoldenDotCounts counts;
    for (const auto& dir : dirs) {
        GoldenCase c;
        std::string why;
        if (!load_golden_case(dir, c, &why)) {
            std::printf("FAILED to load %s: %s\n", dir.c_str(), why.c_str());
            EXPECT(false);
            continue;
        }
        count_golden_dots(c.dots.data(), c.rows, c.k / 32, reinterpret_cast<const block_q4_0*>(c.q4_0.data()),
                          reinterpret_cast<const block_q8_0*>(c.q8_0.data()), reinterpret_cast<const block_q8_1*>(c.q8_1.data()),
                          reinterpret_cast<const block_q8_1*>(c.q8_1_cudaemu.data()), counts);
    }
    for (int v = 0; v < GoldenDotCounts::kVariants; ++v) {
        if (counts.bad[v])
            std::printf("golden %s: %zu of %zu dot products differ\n", GoldenDotCounts::kNames[v], counts.bad[v], counts.compared);
        EXPECT(counts.bad[v] == 0);
    }
    EXPECT(counts.compared > 100);
}

// The rules the golden checks apply can fail: v3 (the dequantized dot) tolerates 1e-12 relative
// and nothing more, and "both overflowed" only when both did; step 5's GPU rule tolerates
// kSumOrderTolerance of Σ|deq(w)·deq(a)| and, where ggml overflowed, only a GPU value that
// overflowed too.
static void test_golden_dot_rules() {
    EXPECT(dequantized_dot_matches(1.0, 1.0 + 0.5e-12));
    EXPECT(!dequantized_dot_matches(1.0, 1.0 + 1e-10));
    EXPECT(dequantized_dot_matches(INFINITY, NAN) && dequantized_dot_matches(NAN, -INFINITY));
    EXPECT(!dequantized_dot_matches(1.0, INFINITY));   // ggml overflowed, we did not
    EXPECT(!dequantized_dot_matches(INFINITY, 1.0));   // we overflowed, ggml did not
    EXPECT(!dequantized_dot_matches(NAN, 0.0));
    EXPECT(gpu_dot_matches_golden(1.0 + 2e-6, 1.0, 1.0));
    EXPECT(!gpu_dot_matches_golden(1.0 + 4e-6, 1.0, 1.0));
    EXPECT(gpu_dot_matches_golden(INFINITY, NAN, 1.0) && gpu_dot_matches_golden(NAN, INFINITY, 1.0));
    EXPECT(!gpu_dot_matches_golden(1.0, INFINITY, 1.0));  // ggml overflowed, the GPU did not
    EXPECT(!gpu_dot_matches_golden(NAN, 1.0, 1.0));
}

// The unpacking every DP4A kernel does, for all 256 byte values in each of the 4 byte positions
// of a word: the low and high nibble of byte p land, unsigned, in byte p of the two results;
// and dp4a_s8 adds the four signed byte products.
static void test_nibble_unpacking() {
    size_t bad = 0;
    for (uint32_t v = 0; v < 256; ++v)
        for (int p = 0; p < 4; ++p) {
            const uint32_t word = (0xA5C3E187u & ~(0xFFu << (8 * p))) | (v << (8 * p));  // byte p = v, others filler
            const uint32_t lo = low_nibbles(word), hi = high_nibbles(word);
            bad += ((lo >> (8 * p)) & 0xFF) != (v & 0x0F);
            bad += ((hi >> (8 * p)) & 0xFF) != (v >> 4);
            bad += (lo & 0xF0F0F0F0u) != 0 || (hi & 0xF0F0F0F0u) != 0;
        }
    EXPECT(bad == 0);
    std::vector<float> r(2000);
    fill_uniform(r, 5, 1, 0.f, 4294967295.f);
    size_t dp4a_bad = 0;
    for (size_t i = 0; i + 1 < r.size(); i += 2) {
        const uint32_t x = (uint32_t)r[i], y = (uint32_t)r[i + 1];
        int expected = 7;
        for (int p = 0; p < 4; ++p) expected += (int8_t)(x >> (8 * p)) * (int8_t)(y >> (8 * p));
        dp4a_bad += dp4a_s8(x, y, 7) != expected;
    }
    EXPECT(dp4a_bad == 0);
    EXPECT(dp4a_s8(0x0F0F0F0Fu, 0x80808080u, 0) == 4 * 15 * -128);  // largest nibble times the most negative int8
}

// sumi four words at a time equals the plain loop over the 32 values.
static void test_block_sumi() {
    std::vector<float> w(32 * 500), a(32 * 500);
    fill_normal(w, 8, 1);
    fill_normal(a, 8, 2);
    std::vector<block_q4_0> wq(500);
    std::vector<block_q8_1> aq(500);
    quantize_row_q4_0_ref(w.data(), wq.data(), (int64_t)w.size());
    quantize_row_q8_1_ref(a.data(), aq.data(), (int64_t)a.size());
    size_t bad = 0;
    for (int b = 0; b < 500; ++b) {
        int plain = 0;
        for (int j = 0; j < 16; ++j) plain += (wq[b].qs[j] & 0x0F) * aq[b].qs[j] + (wq[b].qs[j] >> 4) * aq[b].qs[j + 16];
        bad += block_sumi(wq[b], aq[b]) != plain;
    }
    EXPECT(bad == 0);
}

// Repacking moves bytes and nothing else: unpacking gives back every block.
static void test_repack_round_trip() {
    std::vector<float> w(32 * 300);
    fill_normal(w, 9, 1);
    std::vector<block_q4_0> blocks(300);
    quantize_row_q4_0_ref(w.data(), blocks.data(), (int64_t)w.size());
    const Q4_0Repacked r = repack_q4_0(blocks);
    EXPECT(r.qs.size() == 300 * 16 && r.d.size() == 300);
    const std::vector<block_q4_0> back = unpack_q4_0(r);
    EXPECT(std::memcmp(back.data(), blocks.data(), blocks.size() * sizeof(block_q4_0)) == 0);
    EXPECT(r.qs[16 * 7 + 3] == blocks[7].qs[3] && r.d[299] == blocks[299].d);
}

// The repack for int8 tensor cores against PTX's m16n8k32 A-fragment table, typed from the ISA's
// side (tests/ptx_fragment_tables.h) rather than with the repack's own index functions: element
// (n, col) of block b sits, in its 16-row tile, in byte `part` of register `reg` of lane `lane`;
// the layout keeps that lane's words of blocks 2c and 2c+1 at [tile][c][lane][0..3] as {A(2c),
// B(2c), A(2c+1), B(2c+1)}, registers 0 and 1 in the high nibbles of A and B, 2 and 3 in the low.
// What the kernel extracts there (XOR 0x88, mask 0xF0: 16·(n - 8) as int8) must be the element,
// with padding rows reading 0; then the scale pairs.
static void test_mma_int8_repack() {
    constexpr int64_t N = 21, K = 128, nblocks = K / QK4_0;
    std::vector<float> w(N * K);
    fill_normal(w, 5, 7);
    std::vector<block_q4_0> blocks(N * nblocks);
    quantize_row_q4_0_ref(w.data(), blocks.data(), N * K);
    const Q4_0MmaLayout r = repack_q4_0_for_mma(blocks, N, K);
    EXPECT(r.row_tiles == 2 && r.words.size() == (size_t)(2 * (K / 64) * 32 * 4));
    size_t bad = 0, bad_scales = 0;
    for (int64_t n = 0; n < r.row_tiles * 16; ++n)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int col = 0; col < QK4_0; ++col) {
                const FragmentSlot s = m16n8k32_a_slot((int)(n % 16), col);
                const uint32_t word = r.words[(((n / 16) * (K / 64) + b / 2) * 32 + s.lane) * 4 + (b % 2) * 2 + s.reg % 2];
                const uint32_t reg = s.reg < 2 ? int8_from_high_nibbles(word) : int8_from_low_nibbles(word);
                int want = 0;  // ggml's block: element j in the low nibble of qs[j], j + 16 in the high one of qs[j]
                if (n < N) {
                    const uint8_t byte = blocks[n * nblocks + b].qs[col % 16];
                    want = 16 * ((col < 16 ? byte & 0x0F : byte >> 4) - 8);
                }
                bad += (int)(int8_t)(reg >> (8 * s.part)) != want;
            }
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int g = 0; g < 8; ++g)
                for (int h = 0; h < 2; ++h) {
                    const int64_t n = tile * 16 + g + 8 * h;
                    const ggml_half want = n < N ? blocks[n * nblocks + b].d : 0;
                    bad_scales += (ggml_half)(r.scales[(tile * nblocks + b) * 8 + g] >> (16 * h)) != want;
                }
    EXPECT(bad == 0);
    EXPECT(bad_scales == 0);
    // The trick itself, for all 16 codes in both nibble positions.
    size_t bad_trick = 0;
    for (int n = 0; n < 16; ++n) {
        bad_trick += (int)(int8_t)int8_from_high_nibbles((uint32_t)n << 4) != 16 * (n - 8);
        bad_trick += (int)(int8_t)int8_from_low_nibbles((uint32_t)n) != 16 * (n - 8);
    }
    EXPECT(bad_trick == 0);
}

// Rung 16's row blocks: the same pieces, ordered [row block][chunk][tile in block] (words) and
// [row block][block][tile in block] (scales), so that a stage of a row block is contiguous; tiles
// past the last one are zeros. N = 21 x 2 row blocks' worth of tiles (two tiles and a partial
// block), K = 256: four chunks, so a piece put at the wrong chunk or tile is seen.
static void test_mma_row_blocks() {
    constexpr int64_t N = 21 + 16 * kMmaRowBlockTiles, K = 256, nblocks = K / QK4_0, chunks = K / kMmaChunk8;
    std::vector<float> w(N * K);
    fill_normal(w, 5, 9);
    std::vector<block_q4_0> blocks(N * nblocks);
    quantize_row_q4_0_ref(w.data(), blocks.data(), N * K);
    const Q4_0MmaLayout tiles = repack_q4_0_for_mma(blocks, N, K), rows = order_q4_0_mma_by_row_block(tiles);
    const int64_t row_blocks = (tiles.row_tiles + kMmaRowBlockTiles - 1) / kMmaRowBlockTiles;
    EXPECT(row_blocks == 2 && rows.words.size() == (size_t)(row_blocks * kMmaRowBlockTiles * chunks * 128));
    EXPECT(rows.scales.size() == (size_t)(row_blocks * kMmaRowBlockTiles * nblocks * 8));
    size_t bad = 0, bad_pad = 0;
    for (int64_t tile = 0; tile < row_blocks * kMmaRowBlockTiles; ++tile) {
        const int64_t block = tile / kMmaRowBlockTiles, j = tile % kMmaRowBlockTiles;
        for (int64_t c = 0; c < chunks; ++c)
            for (int i = 0; i < 128; ++i) {
                const uint32_t got = rows.words[((block * chunks + c) * kMmaRowBlockTiles + j) * 128 + i];
                if (tile < tiles.row_tiles) bad += got != tiles.words[(tile * chunks + c) * 128 + i];
                else bad_pad += got != 0;
            }
        for (int64_t b = 0; b < nblocks; ++b)
            for (int i = 0; i < 8; ++i) {
                const uint32_t got = rows.scales[((block * nblocks + b) * kMmaRowBlockTiles + j) * 8 + i];
                if (tile < tiles.row_tiles) bad += got != tiles.scales[(tile * nblocks + b) * 8 + i];
                else bad_pad += got != 0;
            }
    }
    EXPECT(bad == 0);
    EXPECT(bad_pad == 0);
}

// The Q4_K repack for rung 14, read back through the same PTX table: the code the kernel unpacks
// (a mask, after a shift for the high nibbles) with the (sc, m) bytes of its row's half of the
// sub-block word and the (d, dmin) of its super-block must give ggml's dequantized weight, exactly;
// padding rows give 0. Rung 15's FP32 d·sc_j must be that d times that sc, bit for bit.
// K = 512: two super-blocks, so a wrong super-block index reads other scales.
static void test_q4_k_mma_repack() {
    constexpr int64_t N = 21, K = 512, nblocks = K / QK4_0, nsuper = K / QK_K;
    std::vector<float> w(N * K), deq(N * K);
    fill_normal(w, 5, 8);
    std::vector<block_q4_K> blocks(N * nsuper);
    quantize_row_q4_K_ref(w.data(), blocks.data(), N * K);
    dequantize_row_q4_K(blocks.data(), deq.data(), N * K);
    const Q4_KMmaLayout r = repack_q4_k_for_mma(blocks, N, K);
    EXPECT(r.words.size() == (size_t)(2 * (K / 64) * 32 * 4) && r.sub_scales.size() == (size_t)(2 * nblocks * 8));
    EXPECT(r.d_sc.size() == 2 * r.sub_scales.size());
    size_t bad = 0;
    for (int64_t n = 0; n < 32; ++n)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int col = 0; col < QK4_0; ++col) {
                const int64_t tile = n / 16;
                const int g = (int)(n % 8), half = (int)(n % 16) / 8;
                const FragmentSlot s = m16n8k32_a_slot((int)(n % 16), col);
                const uint32_t word = r.words[((tile * (K / 64) + b / 2) * 32 + s.lane) * 4 + (b % 2) * 2 + s.reg % 2];
                const uint32_t reg = s.reg < 2 ? (word >> 4) & 0x0F0F0F0Fu : word & 0x0F0F0F0Fu;
                const int q = (int)(reg >> (8 * s.part)) & 0xFF;
                const uint32_t sm = r.sub_scales[q4_k_mma_sub_scale_index(tile, b, g, K)] >> (16 * half);
                const uint32_t dd = r.d_dmin[q4_k_mma_d_dmin_index(tile, b / kQ4KMmaSubBlocks, g, half, K)];
                const float d = fp16_to_fp32((ggml_half)(dd & 0xFFFF)), dmin = fp16_to_fp32((ggml_half)(dd >> 16));
                const float got = d * (float)(sm & 0xFF) * (float)q - dmin * (float)((sm >> 8) & 0xFF);
                const float want = n < N ? deq[n * K + b * QK4_0 + col] : 0.f;
                const float d_sc = r.d_sc[q4_k_mma_d_sc_index(tile, b, g, half, K)];
                bad += got != want || q > 15 || d_sc != d * (float)(sm & 0xFF);
            }
    EXPECT(bad == 0);
}

// What part 1 of the lesson demonstrates (compensation_demo.h), as properties: one block's
// dequantized dot is Σ deq(w)·deq(a), computed here from ggml's dequantizers; on a whole product
// the compensated form with s = d·Σq has the quantization error itself (to 1%), forgetting the
// correction is more than 100 times worse, and s = Σx adds a little (0.5% to 10%).
static void test_compensation_demo() {
    std::vector<float> w(QK4_0), a(QK4_0), wd(QK4_0), ad(QK4_0);
    fill_normal(w, 3, 41);
    fill_normal(a, 3, 42);
    block_q4_0 wq;
    block_q8_1 a_dsumq, a_sumx;
    quantize_row_q4_0_ref(w.data(), &wq, QK4_0);
    quantize_row_q8_1_ref(a.data(), &a_dsumq, QK8_1, Q81Sum::DTimesSumQ);
    quantize_row_q8_1_ref(a.data(), &a_sumx, QK8_1, Q81Sum::SumX);
    dequantize_row_q4_0(&wq, wd.data(), QK4_0);
    dequantize_row_q8(&a_dsumq, ad.data(), QK8_1);
    double dequantized = 0, truth = 0;
    for (int j = 0; j < QK4_0; ++j) {
        dequantized += (double)wd[j] * ad[j];
        truth += (double)w[j] * a[j];
    }
    const DotVariants one = dot_variants(w.data(), a.data(), &wq, &a_dsumq, &a_sumx, QK4_0);
    EXPECT(std::fabs(one.dequantized - dequantized) <= 1e-12 * std::fabs(dequantized));
    EXPECT(one.truth == truth);
    const ProductErrors e = compensation_product_errors(1234, 8, 256, 4096);
    const double deq = e.nmse[0], forgot = e.nmse[1], dsumq = e.nmse[2], sumx = e.nmse[3];
    std::printf("  part 1's NMSE: dequantized %.3e, no correction %.3e, s = d*sum(q) %.3e, s = sum(x) %.3e; gap %.1e\n", deq, forgot,
                dsumq, sumx, e.max_gap_over_rms);
    EXPECT(deq > 1e-3 && deq < 2e-2);  // 4-bit weights on N(0,1) data
    EXPECT(std::fabs(dsumq / deq - 1.0) < 0.01);
    EXPECT(forgot > 100 * deq);
    EXPECT(sumx > 1.005 * deq && sumx < 1.1 * deq);
    EXPECT(e.max_gap_over_rms > 0 && e.max_gap_over_rms < 1e-2);
}

// 09's large tile copies its activation rows with ActRowStream: thread t reads 16-byte piece
// t % kPiecesPerRow of rows first_row(t) + j·kRowStep of the tile, clamped to its last real one.
// For every M whose last token tile holds 1 .. kBM tokens (every ragged class, two tiles in), no
// piece reads a row at or past M, every piece lands where it belongs, and every piece of every
// real row of the tile is copied by exactly one thread.
static void test_act_row_stream_rows() {
    using C = mma_int8::Large;
    using S = mma_int8::ActRowStream<C>;
    static_assert(S::kApplies, "the large tile copies its activations row by row");
    size_t past_m = 0, misplaced = 0, not_once = 0;
    for (int M = 2 * C::kBM + 1; M <= 3 * C::kBM; ++M) {
        const int m0 = 2 * C::kBM;  // the last, ragged tile
        std::vector<int> copies(C::kBM * S::kPiecesPerRow, 0);  // [row in tile][piece]
        for (int t = 0; t < C::kThreads; ++t) {
            const int r0 = S::first_row(t), last = S::last_piece(M, m0, r0);
            for (int j = 0; j < S::kPerThread; ++j) {
                const int row = std::min(m0 + r0, M - 1) + std::min(j, last) * S::kRowStep;  // what the copy reads
                const int wanted = m0 + r0 + j * S::kRowStep;                                 // where it lands
                past_m += row >= M;
                misplaced += wanted < M && row != wanted;
                if (wanted < M && wanted - m0 < C::kBM) ++copies[(wanted - m0) * S::kPiecesPerRow + t % S::kPiecesPerRow];
            }
        }
        for (int r = 0; r < M - m0; ++r)
            for (int piece = 0; piece < S::kPiecesPerRow; ++piece) not_once += copies[r * S::kPiecesPerRow + piece] != 1;
    }
    EXPECT(past_m == 0);
    EXPECT(misplaced == 0);
    EXPECT(not_once == 0);
}

// The kernel tolerance is tight (check.h, kSumOrderTolerance): a fine mistake just above FP32
// summation order, each block's d_w·d_a rounded to fp16 before it scales the integer sum, must
// fail it at a lesson-like K, and pass a tolerance ten times looser (so that a tolerance loosened
// that far would be noticed here).
static void test_tolerance_rejects_fp16_scale_product() {
    constexpr int64_t M = 3, N = 64, K = 4096, nblocks = K / QK4_0;
    std::vector<float> A(M * K), W(N * K);
    fill_normal(A, 21, 1);
    fill_normal(W, 21, 2);
    std::vector<block_q4_0> w(N * nblocks);
    std::vector<block_q8_1> a(M * nblocks);
    quantize_row_q4_0_ref(W.data(), w.data(), N * K);
    quantize_row_q8_1_ref(A.data(), a.data(), M * K, Q81Sum::DTimesSumQ);
    const ReferenceRows truth = reference_gemm(A.data(), W.data(), M, N, K, reference_row_choice(M, N, K));
    std::vector<double> ref(M * N);
    std::vector<float> canary(M * N);
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            const block_q4_0* wn = &w[n * nblocks];
            const block_q8_1* am = &a[m * nblocks];
            ref[m * N + n] = w4a8_dot_f64(wn, am, nblocks, W4A8Form::Signed);
            double sum = 0;
            for (int64_t b = 0; b < nblocks; ++b) {
                const float scale = fp16_to_fp32(fp32_to_fp16(fp16_to_fp32(wn[b].d) * fp16_to_fp32(am[b].d)));
                sum += (double)scale * block_signed_sumi(wn[b], am[b].qs);
            }
            canary[m * N + n] = (float)sum;
        }
    expect_fine_canary("fp16 d_w*d_a", canary.data(), ref.data(), truth.abs_sum.data(), ref.size());
}

int main() {
    test_compensation_identity();
    test_golden_dots();
    test_golden_dot_rules();
    test_nibble_unpacking();
    test_block_sumi();
    test_repack_round_trip();
    test_mma_int8_repack();
    test_mma_row_blocks();
    test_q4_k_mma_repack();
    test_tolerance_rejects_fp16_scale_product();
    test_act_row_stream_rows();
    test_compensation_demo();
    return unit_test_summary();
}
