// Host-only unit tests of common/ggml_quants.h: the fp16 conversions against CUDA's own
// round-to-nearest-even conversion, round-trip error bounds, Q8_1's s, and the two Q8 rules
// that have look-alikes (a division for the scale; llama.cpp-CUDA's division for q). Needs no GPU.
// (The byte-for-byte comparison with ggml lives in the step2_golden_cpu test.)
#include <cuda_fp16.h>

#include "common.cuh"
#include "ggml_quants.h"
#include "ggml_quants_tensor.h"
#include "unit_test.h"


static uint16_t cuda_half_bits(float f) {
    __half h = __float2half_rn(f);
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
}

static void test_fp16_conversion() {
    // Every 2^32 / 65521-th bit pattern plus its neighbours, against CUDA's conversion.
    size_t mismatches = 0, checked = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += 65521) {
        for (uint32_t delta = 0; delta < 3; ++delta) {
            const float f = f32_from_bits((uint32_t)(base + delta));
            if (std::isnan(f)) continue;
            ++checked;
            mismatches += fp32_to_fp16(f) != cuda_half_bits(f);
        }
    }
    EXPECT(checked > 100000 && mismatches == 0);
    // Hand-picked edges: signed zero, the largest half, overflow at 65520, subnormals, ties, NaN.
    EXPECT(fp32_to_fp16(-0.0f) == 0x8000 && fp32_to_fp16(0.0f) == 0x0000);
    EXPECT(fp32_to_fp16(65504.f) == 0x7BFF && fp32_to_fp16(65519.99f) == 0x7BFF);
    EXPECT(fp32_to_fp16(65520.f) == 0x7C00 && fp32_to_fp16(-1e6f) == 0xFC00);
    EXPECT(fp32_to_fp16(std::ldexp(1.f, -24)) == 0x0001);
    EXPECT(fp32_to_fp16(std::ldexp(1.f, -25)) == 0x0000);                       // tie to even: 0
    EXPECT(fp32_to_fp16(std::ldexp(3.f, -25)) == 0x0002);                       // 1.5 units -> 2
    EXPECT(fp32_to_fp16(f32_from_bits(0x3F801000u)) == 0x3C00);                 // 1 + half ulp: ties to even
    EXPECT(fp32_to_fp16(f32_from_bits(0x3F803000u)) == 0x3C02);                 // 1 + 1.5 ulp: up to even
    EXPECT(fp32_to_fp16(NAN) == 0x7E00 && fp32_to_fp16(-NAN) == 0xFE00);
    // fp16 -> fp32 is exact for all 65536 halves.
    size_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
        __half_raw raw;
        raw.x = (unsigned short)h;
        const float expected = __half2float(__half(raw)), got = fp16_to_fp32((ggml_half)h);
        bad += std::isnan(expected) ? !std::isnan(got) : f32_bits(expected) != f32_bits(got);
    }
    EXPECT(bad == 0);
}

// |x - deq(q(x))| <= d/2 up to the fp16 rounding of d: the values were rounded with the fp32
// scale d32 and are rebuilt with d16, which moves each by |q| * |d32 - d16|. Q4_0's one
// exception: a value of the other sign than max at x * id >= 7.5 is clamped to +7, an error
// of up to one step.
static void test_round_trip_bounds() {
    std::vector<float> x(1 << 16);
    fill_normal(x, 5, 1, 0.f, 3.f);
    for (size_t i = 0; i < x.size(); i += 97) x[i] *= 40.f;  // some outliers, some clamps
    const int64_t nb = (int64_t)x.size() / 32;
    std::vector<block_q4_0> q4(nb);
    std::vector<block_q8_0> q8(nb);
    quantize_row_q4_0_ref(x.data(), q4.data(), (int64_t)x.size());
    quantize_row_q8_0_ref(x.data(), q8.data(), (int64_t)x.size());
    std::vector<float> y4(x.size()), y8(x.size());
    dequantize_row_q4_0(q4.data(), y4.data(), (int64_t)x.size());
    dequantize_row_q8(q8.data(), y8.data(), (int64_t)x.size());
    size_t q4_bad = 0, q8_bad = 0, clamped = 0;
    for (int64_t b = 0; b < nb; ++b) {
        const float d4 = q4_0_block_max(&x[b * 32]) / -8.f, d4h = fp16_to_fp32(q4[b].d);
        const float d8 = q8_block_amax(&x[b * 32]) / 127.f, d8h = fp16_to_fp32(q8[b].d);
        for (int j = 0; j < 32; ++j) {
            const float v = x[b * 32 + j];
            const int nib = j < 16 ? (q4[b].qs[j] & 15) : (q4[b].qs[j - 16] >> 4);
            const bool clamp = nib == 15 && v / d4 > 7.f;
            clamped += clamp;
            const double slack = 1e-6 * fabsf(d4) + 8.0 * fabsf(d4 - d4h);
            const double bound4 = (clamp ? 1.0 : 0.5) * fabsf(d4) + slack;
            q4_bad += !(std::fabs((double)v - y4[b * 32 + j]) <= bound4);
            const double bound8 = 0.5 * d8 + 1e-6 * d8 + 127.0 * fabsf(d8 - d8h);
            q8_bad += !(std::fabs((double)v - y8[b * 32 + j]) <= bound8);
        }
    }
    EXPECT(q4_bad == 0);
    EXPECT(q8_bad == 0);
    EXPECT(clamped > 0);  // the clamp branch was exercised
}

static void test_q8_1_sum() {
    std::vector<float> x(32 * 64);
    fill_uniform(x, 9, 2, -3.f, 3.f);
    std::vector<block_q8_0> q8(64);
    std::vector<block_q8_1> ref(64), sumx(64);
    quantize_row_q8_0_ref(x.data(), q8.data(), (int64_t)x.size());
    quantize_row_q8_1_ref(x.data(), ref.data(), (int64_t)x.size(), Q81Sum::DTimesSumQ);
    quantize_row_q8_1_ref(x.data(), sumx.data(), (int64_t)x.size(), Q81Sum::SumX);
    size_t bad = 0;
    for (int b = 0; b < 64; ++b) {
        bad += ref[b].d != q8[b].d || std::memcmp(ref[b].qs, q8[b].qs, 32) != 0;  // Q8_1 = Q8_0 + s
        int sum_q = 0;
        double sum_x = 0;
        for (int j = 0; j < 32; ++j) { sum_q += ref[b].qs[j]; sum_x += x[b * 32 + j]; }
        bad += ref[b].s != fp32_to_fp16((float)sum_q * (q8_block_amax(&x[b * 32]) / 127.f));
        bad += std::fabs(fp16_to_fp32(sumx[b].s) - sum_x) > 1e-2 * (1 + std::fabs(sum_x));  // fp16 of sum(x)
    }
    EXPECT(bad == 0);
    float ones[32];
    for (float& v : ones) v = 1.f;
    EXPECT(butterfly_sum32(ones) == 32.f);
}

// The rules, written out here independently of ggml_quants.h, with the look-alike each one is
// easily confused with. A block "discriminates" when rule and look-alike give different bytes.
static void spec_q8_block(const float* x, bool divide, bool reciprocal_scale, int8_t q[32], float* d_out) {
    float amax = 0.f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = reciprocal_scale ? amax * (1.0f / 127.0f) : amax / 127.0f;
    const float id = d != 0.f ? 1.0f / d : 0.f;
    for (int j = 0; j < 32; ++j) q[j] = (int8_t)(divide ? (d != 0.f ? std::roundf(x[j] / d) : 0.f) : std::roundf(x[j] * id));
    *d_out = d;
}

// Q8 scale: d = amax / 127 (a division), not amax * (1/127). The fp32 scales differ for about 4%
// of blocks: the scale helper must follow the rule on every one of them. The *bytes* differ far
// more rarely (a few blocks per million, where a code sits on a rounding boundary): search for
// such blocks and require our quantizer to produce the rule's bytes there.
static void test_q8_scale_is_a_division() {
    size_t scales_tried = 0, scales_wrong = 0, discriminating = 0, wrong = 0;
    for (uint64_t stream = 0; stream < 64 && discriminating < 3; ++stream) {
        std::vector<float> x(32 * 250000);
        fill_normal(x, 17, 200 + stream);
        for (size_t b = 0; b < x.size() / 32; ++b) {
            const float amax = q8_block_amax(&x[b * 32]);
            if (amax / 127.0f == amax * (1.0f / 127.0f)) continue;
            ++scales_tried;
            scales_wrong += f32_bits(q8_scale(amax)) != f32_bits(amax / 127.0f);
            int8_t q_rule[32], q_alike[32];
            float d_rule, d_alike;
            spec_q8_block(&x[b * 32], false, false, q_rule, &d_rule);
            spec_q8_block(&x[b * 32], false, true, q_alike, &d_alike);
            if (fp32_to_fp16(d_rule) == fp32_to_fp16(d_alike) && std::memcmp(q_rule, q_alike, 32) == 0) continue;
            ++discriminating;
            block_q8_0 ours;
            quantize_row_q8_0_ref(&x[b * 32], &ours, 32);
            wrong += ours.d != fp32_to_fp16(d_rule) || std::memcmp(ours.qs, q_rule, 32) != 0;
        }
    }
    EXPECT(scales_tried > 1000 && scales_wrong == 0);
    EXPECT(discriminating >= 3 && wrong == 0);
}

// llama.cpp's CUDA quantizer (our Q81Sum::SumX) divides: q = round(x / d), not round(x * (1/d)).
// About one random block in 20000 tells them apart; search until enough are found.
static void test_sum_x_quantizer_divides() {
    size_t discriminating = 0, wrong = 0;
    for (uint64_t stream = 0; stream < 64 && discriminating < 8; ++stream) {
        std::vector<float> x(32 * 50000);
        fill_normal(x, 23, 100 + stream);
        for (size_t b = 0; b < x.size() / 32; ++b) {
            int8_t q_rule[32], q_alike[32];
            float d;
            spec_q8_block(&x[b * 32], true, false, q_rule, &d);
            spec_q8_block(&x[b * 32], false, false, q_alike, &d);
            if (std::memcmp(q_rule, q_alike, 32) == 0) continue;
            ++discriminating;
            block_q8_1 ours;
            quantize_row_q8_1_ref(&x[b * 32], &ours, 32, Q81Sum::SumX);
            wrong += std::memcmp(ours.qs, q_rule, 32) != 0;
        }
    }
    EXPECT(discriminating >= 8);
    EXPECT(wrong == 0);
}

// Whole tensors are quantized in parallel chunks of kCpuChunkBlocks blocks: a tensor of more than
// two chunks, with a ragged last one, must come out byte for byte as one sequential call makes it.
static void test_chunked_cpu_quantizer() {
    const int64_t nblocks = 2 * kCpuChunkBlocks + 37, n = nblocks * 32;
    std::vector<float> x(n);
    fill_normal(x, 31, 1);
    for (QuantFormat f : {QuantFormat::Q4_0, QuantFormat::Q8_0, QuantFormat::Q8_1}) {
        const QuantizedTensor chunked = quantize_cpu(x.data(), n, f);
        std::vector<uint8_t> sequential(chunked.bytes.size());
        if (f == QuantFormat::Q4_0) quantize_row_q4_0_ref(x.data(), reinterpret_cast<block_q4_0*>(sequential.data()), n);
        else if (f == QuantFormat::Q8_0) quantize_row_q8_0_ref(x.data(), reinterpret_cast<block_q8_0*>(sequential.data()), n);
        else quantize_row_q8_1_ref(x.data(), reinterpret_cast<block_q8_1*>(sequential.data()), n, Q81Sum::DTimesSumQ);
        EXPECT(check_bytes("chunked", chunked.bytes.data(), sequential.data(), sequential.size(), block_bytes(f), 3).pass);
    }
}

int main() {
    test_fp16_conversion();
    test_round_trip_bounds();
    test_q8_1_sum();
    test_q8_scale_is_a_division();
    test_sum_x_quantizer_divides();
    test_chunked_cpu_quantizer();
    return unit_test_summary();
}
