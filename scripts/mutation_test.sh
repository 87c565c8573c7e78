#!/usr/bin/env bash
# A check counts only if it can fail. This plants known bugs, one at a time, in a scratch copy of
# the tree (the tree itself is never touched), rebuilds the affected program, and passes only if
# the named tests reject every one. The table below is the list of bugs our tests must catch.
# A catch counts only against a baseline: the same tests, on the unmutated tree, must pass first
# (a test that fails, or a tool that is missing, without the bug is reported as BASELINE, never as
# a catch), and the bug is caught only when a test that passed (or, without a GPU, skipped) there
# now fails.
#
# usage: scripts/mutation_test.sh [NAME...]      (default: all; GPU mutations skip without a GPU)
#        scripts/mutation_test.sh --check [BUILD]  (no build: every substitution still applies to its file
#                    and, given a configured BUILD directory, its test regex names a test there)
# env:   CUDA_ARCH   architecture for the scratch build (default: what CMake detects)
#        MUTATION_TEST_TIMEOUT  seconds a mutated test may run (default 900; a bug in a pipeline's
#                    barriers can hang a kernel, and a timeout counts as a failure, so as a catch)
#        MUTATION_PARALLEL  build this many mutated trees at once, each a copy of its own (default 1:
#                    one tree, mutated, rebuilt and restored in turn); the tests still run one
#                    mutation after another. On a 16-core GPU machine, 8 builds the step-3 rows
#                    in about the time of one
#
# Building where there is no GPU, testing where there is one (GPU time is the scarce part):
#        scripts/mutation_test.sh --pack FILE [NAME...]   build the unmutated tree and each row's mutated
#                    target here (GPU rows too; set CUDA_ARCH, there is no GPU to detect) and write them,
#                    with the tree, to FILE (.tar.gz, or the smaller .tar.xz). Nothing is tested.
#        scripts/mutation_test.sh --from FILE [NAME...]   on the GPU machine: unpack FILE there and judge
#                    every packed row (or those named) as above, the packed binaries swapped in and out
#                    of the one unmutated build, with no compiler
# env:   MUTATION_PACK_ROOT  where --pack builds (default /tmp/qgf-mutation-pack); --from unpacks at the
#                    same absolute path, which the pack's CTest files name
case "${1:-}" in -h | --help) sed -n '2,/^set /s/^# \{0,1\}//p' "$0"; exit 0 ;; esac  # the comment above is the usage
set -uo pipefail
mode=test pack_file=
case "${1:-}" in
  --pack | --from)
    [ -n "${2:-}" ] || { echo "usage: $0 $1 FILE [NAME...]" >&2; exit 2; }
    mode=${1#--} pack_file=$(realpath -m "$2"); shift 2
    [ "$mode" = pack ] || [ -f "$pack_file" ] || { echo "no such pack: $pack_file" >&2; exit 2; } ;;
esac
cd "$(dirname "$0")/.."

# name | file | perl substitution (applied with -0pe) | target to rebuild | ctest regex that must fail | gpu
MUTATIONS=$(cat <<'TABLE'
store_guard_04|step1_fp32/kernels/04_blocktile_1d.cuh|s/if \(m < M && n < N\) C/if (n < N) C/|step1_fp32|^step1_memcheck|gpu
store_quad_edge|common/tile_store.cuh|s/if \(N % 4 == 0 && n \+ 3 < N\)/if (N % 4 == 0)/|step1_fp32|^step1_memcheck|gpu
tile_row_guard|step1_fp32/kernels/tile_helpers.cuh|s/regs\[i\] = \(row < nrows && k < K\)/regs[i] = (k < K)/|step1_fp32|^step1_memcheck|gpu
skip_last_k_tile_08|step1_fp32/kernels/08_double_buffered.cuh|s/k0 \+ Cfg::BK < K;/k0 + 2 * Cfg::BK < K;/|step1_fp32|^step1_awkward|gpu
fp16_device_rounding|common/ggml_quants.h|s/__float2half_rn\(f\)/__float2half_rz(f)/|step2_quant|^step2_lesson$|gpu
gemv_mma_aligned_barrier|common/gemv_mma.cuh|s/asm volatile\("barrier.sync 1, %0;" ::"r"\(threads\) : "memory"\);/__syncthreads();/|step4_w4a8|^step4_synccheck_gemv_mma|gpu
wide_sum_one_level|common/ggml_quants_gpu.cuh|s/group_sum<kWideLanesPerBlock>\(sum_q\)/group_sum<kWideLanesPerBlock \/ 2>(sum_q)/|step4_w4a8|^step4_shape_129x100x4128$|gpu
wide_tail_guard|common/ggml_quants_gpu.cuh|s/if \(!in\) return;\n(\s+reinterpret_cast<uint2\*>)/$1/|step4_w4a8|^step4_memcheck_wide_quantizer|gpu
wide_fp32_d_unrounded|common/ggml_quants_gpu.cuh|s/if \(d_f32\) d_f32\[b\] = fp16_to_fp32\(d_half\);/if (d_f32) d_f32[b] = d;/|step4_w4a8|^step4_shape_129x100x4128$|gpu
codes_for_fp32_d_unwritten|common/ggml_quants_gpu.cuh|s/(\s+)(reinterpret_cast<uint2\*>\(qs\))/$1if (WITH_DS) $2/|step4_w4a8|^step4_shape_129x100x4128$|gpu
split_one_block_grid|common/ggml_quants_gpu.cuh|s/quantize_grid\(n, 1\)/quantize_grid(n)/|step4_w4a8|^step4_shape_1x4100x4128$|gpu
quantizer_tail_guard|common/ggml_quants_gpu.cuh|s/if \(!in\) return;\n(\s+\*reinterpret_cast)/$1/|step2_quant|^step2_memcheck|gpu
tolerance_1e-1|common/check.h|s/kSumOrderTolerance = 3e-6/kSumOrderTolerance = 1e-1/|step1_fp32|^step1_canary_skip_last_k_tile$|gpu
poison_ff_only|common/buffers.cuh|s/kPoisonPatterns\[\] = \{0xFF, 0x00\}/kPoisonPatterns[] = {0xFF}/|step2_quant|^step2_canary_q8_0_skip_minus_one$|gpu
poison_00_only|common/buffers.cuh|s/kPoisonPatterns\[\] = \{0xFF, 0x00\}/kPoisonPatterns[] = {0x00}/|step2_quant|^step2_canary_q8_0_skip_zero$|gpu
fill_uniform_range|common/data.h|s/v = lo \+ \(hi - lo\) \* v;/v = v + 0 * (lo + hi);/|test_common|^test_common$|cpu
nan_passes_check|common/check.h|s/ok = err <= bound;/ok = !(err > bound);/|test_common|^test_common$|cpu
check_bytes_last|common/check.h|s/for \(size_t i = 0; i < n; \+\+i\) \{\n        if \(g\[i\] == e\[i\]\)/for (size_t i = 0; i + 1 < n; ++i) {\n        if (g[i] == e[i])/|test_common|^test_common$|cpu
check_close_empty_passes|common/check.h|s/r.pass = r.bad == 0 && n > 0;  \/\/ comparing/r.pass = r.bad == 0;  \/\/ comparing/|test_common|^test_common$|cpu
check_bytes_empty_passes|common/check.h|s/r.pass = r.bad == 0 && n > 0;  \/\/ as check_close/r.pass = r.bad == 0;  \/\/ as check_close/|test_common|^test_common$|cpu
rows_evenly_spaced|common/reference_gemm.h|s/anchor - anchor % kResidueSpan \+ i % kResidueSpan/anchor/|test_common|^test_common$|cpu
q8_scale_reciprocal|common/ggml_quants.h|s/return amax \/ 127.0f;/return amax * (1.0f \/ 127.0f);/|test_quants|^test_quants$|cpu
sum_x_multiplies|common/ggml_quants.h|s/\(int8_t\)roundf\(x \/ d\)/(int8_t)roundf(x * (1.0f \/ d))/|test_quants|^test_quants$|cpu
nibble_mask|common/q4_0_q8_1.h|s/return packed & 0x0F0F0F0Fu;/return packed \& 0x0F0F0F0Eu;/|test_w4a8_cpu|^step4_cpu|cpu
compensation_sign|common/q4_0_q8_1.h|s/-mul_rn\(8.0f, s\)/mul_rn(8.0f, s)/|test_w4a8_cpu|^step4_cpu|cpu
gemv_row_guard|step4_w4a8/kernels/06_gemv_dp4a.cuh|s/lane == 0 && row0 \+ r < p.N/lane == 0/|step4_w4a8|^step4_memcheck|gpu
tiled_store_guard|common/tile_store.cuh|s/if \(m >= M\) return;//|step4_w4a8|^step4_memcheck|gpu
tiled_weight_zero_fill|step4_w4a8/kernels/05_dp4a_tiled.cuh|s/const bool in = n0 \+ row < p.N && b0 \+ b < nblocks;/const bool in = b0 + b < nblocks;/|step4_w4a8|^step4_memcheck|gpu
dp4a_skip_last_block|step4_w4a8/kernels/03_dp4a.cuh|s/for \(int b = 0; b < nblocks; \+\+b\)/for (int b = 0; b < nblocks - 1; ++b)/|step4_w4a8|^step4_shape_37x4100x4128$|gpu
q8_k_scale_sign|common/ggml_kquants.h|s/const float iscale = -127.f \/ max;/const float iscale = 127.f \/ max;/|test_kquants|^test_kquants$|cpu
q4_k_q8_k_lane_order|common/kquants_q8_k.h|s/for \(int l = 0; l < 8; \+\+l\) total \+= lanes\[l\];/for (int l = 7; l >= 0; --l) total += lanes[l];/|test_kquants|^test_kquants$|cpu
q6_k_q8_k_scale_index|common/kquants_q8_k.h|s/x\[b\]\.scales\[i \/ 16\] \* q6_k_code\(x\[b\], i\) \* y/x[b].scales[i \/ 32] * q6_k_code(x[b], i) * y/|test_kquants|^test_kquants$|cpu
q4_0_tie_break|common/ggml_quants.h|s/if \(fabsf\(x\[j\]\) > amax\)/if (fabsf(x[j]) >= amax)/|step2_quant|^step2_golden_cpu$|cpu
mma_store_guard|common/mma_tiles.cuh|s/if \(n < N && m < M\) c\[/if (n < N) c[/|step3_w4a16|^step3_memcheck|gpu
mma_skip_last_k_tile|step3_w4a16/kernels/04_mma_g128.cuh|s/cp_async_pipeline<C::kStages>\(\n(\s+)k_tiles,/cp_async_pipeline<C::kStages>(\n$1k_tiles - 1,/|step3_w4a16|^step3_shape_37x100x4224$|gpu
mma_zero_of_wrong_row|step3_w4a16/kernels/04_mma_g128.cuh|s/nibbles_to_half2\(word >> 4, z_hi\[tn\]\)/nibbles_to_half2(word >> 4, z_lo[tn])/|step3_w4a16|^step3_shape_37x100x4224$|gpu
mma_second_tile_of_first|step3_w4a16/kernels/04_mma_g128.cuh|s/const int t = wn \* C::kTilesN \+ tn;/const int t = wn * C::kTilesN;/|step3_w4a16|^step3_shape_17x4100x4224$|gpu
gemv_swizzle_key|step3_w4a16/kernels/03_gemv.cuh|s/return \{stage \+ 8 \* token_chunk, token_chunk % 8\};/return {stage + 8 * token_chunk, 0};/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
wgmma_kstep_offset|common/wgmma.cuh|s/32u \* \(uint32_t\)k_step/0u * (uint32_t)k_step/|step3_w4a16|^step3_shape_37x100x4224$|gpu
wgmma_zero_of_wrong_row|step3_w4a16/kernels/07_wgmma_g128.cuh|s/high_nibble_bias\(__high2half2\(z\)\)/high_nibble_bias(__low2half2(z))/|step3_w4a16|^step3_shape_37x100x4224$|gpu
wgmma_pair_same_half|step3_w4a16/kernels/07_wgmma_g128.cuh|s/m0 \+ \(int\)half \* C::kBoxTokens/m0/|step3_w4a16|^step3_wgmma_shape_129x4100x4224$|gpu
wgmma_split_drops_last_ktile|step3_w4a16/kernels/07_wgmma_g128.cuh|s/gridDim.z - first\) \{\}/gridDim.z - first - 1) {}/|step3_w4a16|^step3_wgmma_shape_1x4100x4224$|gpu
wgmma_split_sum_skips_last_rank|step3_w4a16/kernels/07_wgmma_g128.cuh|s/if \(rank < splits\) sum.x/if (rank < splits - 1) sum.x/|step3_w4a16|^step3_wgmma_shape_1x4100x4224$|gpu
wgmma_last_row_block|step3_w4a16/kernels/07_wgmma_g128.cuh|s/return ceil_div\(ceil_div\(N, \(int64_t\)kMmaRows\), \(int64_t\)row_tiles\);/return ceil_div(N, (int64_t)kMmaRows) \/ row_tiles;/|step3_w4a16|^step3_wgmma_shape_129x4100x4224$|gpu
wgmma_producer_phase|step3_w4a16/kernels/07_wgmma_g128.cuh|s/\(j \/ C::kStages - 1\) & 1/(j \/ C::kStages) \& 1/|step3_w4a16|^step3_wgmma_shape_513x4100x4224$|gpu
wgmma_release_before_read|step3_w4a16/kernels/07_wgmma_g128.cuh|s/(\n\s+)Format::dequantize\(a, raw\);\n(\s+)multiply\(a, at\);/$1release(at);$1Format::dequantize(a, raw);\n$2multiply(a, at);/; s/(keep_registers\(acc\);\n)\s+release\(at\);\n/$1/|step3_w4a16|^step3_wgmma_shape_129x4100x4224$|gpu
wgmma_q4_0_first_block_scale|step3_w4a16/kernels/07_wgmma_g128.cuh|s/bits_half2\(r\.d\[ks \/ 2\]\)/bits_half2(r.d[0])/|step3_w4a16|^step3_wgmma_shape_37x4100x4224$|gpu
wgmma_q4_0_scale_piece_per_group|step3_w4a16/kernels/07_wgmma_g128.cuh|s/static constexpr int kStagesPerScalePiece = 1;/static constexpr int kStagesPerScalePiece = 2;/|step3_w4a16|^step3_wgmma_shape_37x4100x4224$|gpu
wgmma_row_block_order|common/row_blocks.h|s/\&dst\[\(\(block \* pieces_per_tile \+ p\) \* block_tiles \+ j\) \* words_per_piece\]/&dst[((block * block_tiles + j) * pieces_per_tile + p) * words_per_piece]/|test_w4a16_cpu|^step3_cpu|cpu
auto_g128_ignores_code|step3_w4a16/kernels/08_auto_g128.cuh|s/arch_shortfall\(gpu, kWgmmaArch\).empty\(\) && //|test_w4a16_cpu|^step3_cpu|cpu
auto_g128_ignores_long_k|step3_w4a16/kernels/08_auto_g128.cuh|s/wgmma_pays = c\.M > kMaxMmaSyncTokens \x7c\x7c c\.K >= kMinWgmmaK;/wgmma_pays = c.M > kMaxMmaSyncTokens;/|test_w4a16_cpu|^step3_cpu|cpu
wgmma_token_tile|step3_w4a16/kernels/07_wgmma_g128.cuh|s/if \(M > kMaxTokens\) return kMaxTokens;/if (M > kMaxTokens \/ 2) return kMaxTokens;/|test_w4a16_cpu|^step3_cpu|cpu
auto_copy_engine_tokens|step3_w4a16/kernels/08_auto_g128.cuh|s/kMaxCopyEngineTokens = 1;/kMaxCopyEngineTokens = 2;/|test_w4a16_cpu|^step3_cpu|cpu
auto_g128_threshold|step3_w4a16/kernels/08_auto_g128.cuh|s/kMaxMmaSyncTokens = 16/kMaxMmaSyncTokens = 32/|test_w4a16_cpu|^step3_cpu|cpu
mma_fragment_rows|step3_w4a16/w4a16_formats.h|s/return \{g \+ 8 \* \(j & 1\), 2 \* t \+ 8 \* \(j >> 1\) \+ h\};/return {g + 8 * (j >> 1), 2 * t + 8 * (j & 1) + h};/|test_w4a16_cpu|^step3_cpu|cpu
g128_range_without_zero|step3_w4a16/w4a16_formats.h|s/float lo = 0.f, hi = 0.f;/float lo = x[0], hi = x[0];/|test_w4a16_cpu|^step3_cpu|cpu
int8_store_guard|common/mma_tiles.cuh|s/if \(n < N && m < M\) c\[/if (n < N) c[/|step4_w4a8|^step4_memcheck_37x100x4224$|gpu
int8_skip_last_k_tile|step4_w4a8/kernels/09_mma_int8.cuh|s/cp_async_pipeline<C::kStages>\(\n(\s+)k_tiles,/cp_async_pipeline<C::kStages>(\n$1k_tiles - 1,/|step4_w4a8|^step4_shape_37x100x4224$|gpu
int8_nibble_halves|step4_w4a8/kernels/09_mma_int8.cuh|s/a\[0\] = high_nibbles_to_int8\(word_a, sign\), a\[1\] = high_nibbles_to_int8\(word_b, sign\)/a[0] = high_nibbles_to_int8(word_a << 4, sign), a[1] = high_nibbles_to_int8(word_b << 4, sign)/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
int8_factor_four_kept|step4_w4a8/kernels/09_mma_int8.cuh|s/scale_mma_tiles\(acc, 1.f \/ 64\);/scale_mma_tiles(acc, 1.f \/ 16);/|step4_w4a8|^step4_shape_37x100x4224$|gpu
int8_scale_product_token|step4_w4a8/kernels/09_mma_int8.cuh|s/da\[tm\] = a_scales\[\(\(wm \* C::kTilesM \+ tm\) \* 8 \+ lane \/ 4\)/da[tm] = a_scales[((wm * C::kTilesM + tm) * 8 + 2 * (lane % 4))/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
outer_product_rows_swapped|common/mma.cuh|s/const uint32_t a\[2\] = \{__float_as_uint\(u_g\), __float_as_uint\(u_g8\)\};/const uint32_t a[2] = {__float_as_uint(u_g8), __float_as_uint(u_g)};/|test_gpu_driver|^test_gpu_driver$|gpu
read_floor_skips_tail|common/read_floor.cuh|s/    for \(; i < pieces; i \+= stride\) x \^= xor_of\(__ldcs\(bytes \+ i\)\);\n//|step4_w4a8|^step4_read_floor$|gpu
fp32_d_unrounded|common/ggml_quants_gpu.cuh|s/if \(d_f32\) d_f32\[b\] = fp16_to_fp32\(\(ggml_half\)\(ds_bits & 0xFFFFu\)\);/if (d_f32) d_f32[b] = lane.d;/|step4_w4a8|^step4_shape_37x100x4224$|gpu
int8_split_k_sum|common/mma_tiles.cuh|s/other < WARPS_K - 1; \+\+other/other < WARPS_K - 2; ++other/|step4_w4a8|^step4_shape_13x4100x4224$|gpu
int8_token_clamp|step4_w4a8/kernels/09_mma_int8.cuh|s/src = \(size_t\)min\(m0 \+ r, M - 1\) \* \(K \/ 16\)/src = (size_t)(m0 + r) * (K \/ 16)/|step4_w4a8|^step4_memcheck_13x100x4224$|gpu
act_row_clamp|step4_w4a8/kernels/09_mma_int8.cuh|s/first \+ min\(j, last\) \* row_step/first + j * row_step/|step4_w4a8|^step4_memcheck_mma_int8_129x100x256$|gpu
int8_stage_barrier|common/async_copy.cuh|s/(wait_copies<STAGES - 2>\(\);)\n\s+__syncthreads\(\);/$1/|step4_w4a8|^step4_racecheck_mma_int8_129x100x1280$|gpu
mma_g128_stage_barrier|common/async_copy.cuh|s/(wait_copies<STAGES - 2>\(\);)\n\s+__syncthreads\(\);/$1/|step3_w4a16|^step3_racecheck_129x100x4224$|gpu
tma_no_swizzle|step4_w4a8/kernels/11_mma_int8_tma.cuh|s/Tile::kBM, Tile::kBK, CU_TENSOR_MAP_SWIZZLE_128B/Tile::kBM, Tile::kBK, CU_TENSOR_MAP_SWIZZLE_NONE/|step4_w4a8|^step4_shape_129x4100x128$|gpu
tma_full_parity|step4_w4a8/kernels/11_mma_int8_tma.cuh|s/wait_barrier\(&full\[kt % C::kStages\], \(kt \/ C::kStages\) & 1\)/wait_barrier(\&full[kt % C::kStages], (kt \/ C::kStages + 1) \& 1)/|step4_w4a8|^step4_shape_200x4100x640$|gpu
resident_row_guard|common/gemv_resident.cuh|s/if \(row < p.N\) p.c\[/p.c[/|step4_w4a8|^step4_memcheck_3x4101x32$|gpu
resident_one_buffer|common/gemv_resident.cuh|s/parity \^= 1\)/parity ^= 0)/|step4_w4a8|^step4_racecheck_resident_2x2000x15360$|gpu
resident_extra_threads|common/gemv_resident.cuh|s/const bool has_block = block < p.K \/ 32;/const bool has_block = true;/|step4_w4a8|^step4_shape_2x4100x4128$|gpu
resident_w4a16_act_order|step3_w4a16/kernels/05_gemv_resident.cuh|s/make_float4\(f0.x, f0.y, f1.x, f1.y\)/make_float4(f0.y, f0.x, f1.x, f1.y)/|step3_w4a16|^step3_shape_1x4100x4128$|gpu
profile_metric_pipe|scripts/profile.sh|s/if grep -qx "\$\{m%%.\*\}" <<<"\$known"; then/if printf "%s\\n" "\$known" \x7c grep -qx "\$\{m%%.*\}"; then/|test_common|^profile_script$|cpu
kernel_check_shape_guard|scripts/kernel_check.sh|s/\[\[ \$shape =~ \^\[1-9\]\[0-9\]\*x\[1-9\]\[0-9\]\*x\[1-9\]\[0-9\]\*\$ \]\] \x7c\x7c usage/true \x7c\x7c usage/|test_common|^kernel_check_command_line$|cpu
sass_kind_modifiers|scripts/sass_mix.py|s/return opcode\.split\("\."\)\[0\]/return opcode/|test_common|^sass_mix_script$|cpu
gemv_mma_row_guard|common/gemv_mma.cuh|s/if \(row < p.N\) p.c\[/p.c[/|step4_w4a8|^step4_memcheck_gemv_mma_7x4101x192$|gpu
gemv_mma_one_buffer|common/gemv_mma.cuh|s/parity \^= 1;/parity ^= 0;/|step4_w4a8|^step4_racecheck_gemv_mma_2x8200x4224$|gpu
gemv_mma_last_chunk|common/gemv_mma.cuh|s/const Slice s\(warp, warps, p.K \/ kChunkK\);/const Slice s(warp, warps, p.K \/ kChunkK - 1);/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
gemv_mma_token_scale|step4_w4a8/kernels/10_gemv_mma.cuh|s/\+ 2 \* \(lane % 4\);/+ (lane % 4);/|step4_w4a8|^step4_shape_8x4100x4224$|gpu
gemv_mma_finish_one_pass|common/gemv_mma.cuh|s/o \+= warps \* 32\)/o += 1 << 20)/|step4_w4a8|^step4_memcheck_gemv_mma_7x4101x192$|gpu
gemv_mma_lop3_no_sign|step4_w4a8/w4a8_mma_layout.h|s/%2, 0x6A;/%2, 0xC0;/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
gemv_mma_slices_floor|common/gemv_mma.cuh|s/count\(\(warp \+ 1\) \* chunks \/ warps - warp \* chunks \/ warps\)/count(chunks \/ warps)/|test_common|^test_common$|cpu
gemv_mma_g128_group|step3_w4a16/kernels/06_gemv_mma.cuh|s/\+ \(chunk \/ 2\) \* 8\);/+ (chunk \/ 2) * 0);/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_mma_g128_zero_rows|step3_w4a16/kernels/06_gemv_mma.cuh|s/z16_hi\[t\] = high_nibble_bias\(__high2half2\(z\)\)/z16_hi[t] = high_nibble_bias(__low2half2(z))/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_mma_stage_short|common/gemv_mma.cuh|s/i < TOKENS \* pieces; i \+= 32/i < TOKENS * pieces - 1; i += 32/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_mma_q4_0_no_minus_8|step3_w4a16/kernels/06_gemv_mma.cuh|s/__float2half2_rn\(1032.0f\);  \/\/ 1024 \+ 8/__float2half2_rn(1024.0f);  \/\/ 1024 + 8/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
q4_0_mma16_pad|step3_w4a16/w4a16_formats.h|s/\(int\)\(k % QK4_0\)\); \}, 8\);/(int)(k % QK4_0)); }, 0);/|test_w4a16_cpu|^step3_cpu|cpu
gemv_mma_pairs_one_scale|step4_w4a8/kernels/10_gemv_mma.cuh|s/odd \? w\[t\].d\[1\] : w\[t\].d\[0\]/w[t].d[0]/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
gemv_mma_pairs_no_fold|step4_w4a8/kernels/10_gemv_mma.cuh|s/acc\[t\]\[i\] \+= __shfl_xor_sync\(0xFFFFFFFFu, acc\[t\]\[i\], 2\);/acc[t][i] += 0.f;/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
gemv_mma_pairs_zero_short|step4_w4a8/kernels/10_gemv_mma.cuh|s/kZeroBytes = QK4_0;/kZeroBytes = 16;/|step4_w4a8|^step4_shape_4x37x4224$|gpu
resident_k_limit|common/gemv_resident.cuh|s/if \(K \/ 32 > gemv_resident::kMaxThreads\)/if (K \/ 32 >= gemv_resident::kMaxThreads)/|test_common|^test_common$|cpu
exercises_run_by_default|common/cli.h|s/\(exercises && kernel.role == KernelRole::Exercise\)/(kernel.role == KernelRole::Exercise)/|test_common|^test_common$|cpu
exercise_without_its_lesson|common/cli.h|s/o.companions.push_back\(kern.compare_with\);/(void)kern;/|test_common|^test_common$|cpu
stub_fail_unexplained|common/driver.cuh|s/info.role == KernelRole::Exercise && !info.written \? info.exercise_file : ""/""/|test_common|^test_common$|cpu
int8_k_multiple_256|step4_w4a8/kernels/09_mma_int8.cuh|s/kMmaInt8KMultiple = mma_int8::kWarpK;/kMmaInt8KMultiple = 2 * mma_int8::kWarpK;/|step4_w4a8|^step4_shape_37x100x4224$|cpu
gemv_mma_g128_smem_quarter|step3_w4a16/kernels/06_gemv_mma.cuh|s/gemv_mma_why_not<MmaG128W4A16>\(c.M, c.K, gpu.smem_per_block_optin\)/gemv_mma_why_not<MmaG128W4A16>(c.M, c.K, gpu.smem_per_block_optin \/ 4)/|step3_w4a16|^step3_lesson_cases$|cpu
gemv_tma_producer_phase|common/gemv_tma.cuh|s/wait_barrier\(&empty\[s\], at.parity \^ 1u\)/wait_barrier(\&empty[s], at.parity)/|step3_w4a16|^step3_gemv_tma_shape_3x4100x14336$|gpu
gemv_tma_ring_never_wraps|common/tma.cuh|s/RingPosition\{0, parity \^ 1u\}/RingPosition{0, parity}/|step3_w4a16|^step3_gemv_tma_shape_3x4100x14336$|gpu
gemv_tma_release_by_one_warp|common/gemv_tma.cuh|s/init_barrier\(&empty\[s\], kMathWarps \* 32\)/init_barrier(\&empty[s], 32)/|step3_w4a16|^step3_gemv_tma_shape_3x4100x14336$|gpu
gemv_tma_skip_last_chunk|common/gemv_tma.cuh|s/if \(first_chunk \+ u < count\) acts.chunk/if (first_chunk + u + (c0 + count == chunks) < count) acts.chunk/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_tma_first_tile_twice|common/gemv_tma.cuh|s/const int tile = group \* kTiles \+ t < walk.row_tiles/const int tile = group * kTiles + t < 0/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_tma_g128_scale_group|step3_w4a16/kernels/09_gemv_tma.cuh|s/\[\(c \/ 2\) \* 8 \+ lane \/ 4\]/[(c \/ 2) * 0 + lane \/ 4]/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_tma_q4_0_second_block|step3_w4a16/kernels/09_gemv_tma.cuh|s/\{d\[0\], d\[8\]\}/{d[0], d[0]}/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
w4a16_high_nibble_bias|step3_w4a16/w4a16_layout.cuh|s/__float2half2_rn\(960.0f\)/__float2half2_rn(961.0f)/|step3_w4a16|^step3_shape_2x4100x4224$|gpu
gemv_tma_one_token_stage_layout|common/gemv_tma.cuh|s/words \+ gemv_mma::kTilesPerItem \* gemv_tma::stage_chunks\(TOKENS\) \* gemv_tma::kPieceBytes/words + gemv_mma::kTilesPerItem * gemv_tma::stage_chunks(2) * gemv_tma::kPieceBytes/|step3_w4a16|^step3_wgmma_shape_1x4100x4224$|gpu
wgmma_split_drops_second_half|step3_w4a16/kernels/07_wgmma_g128.cuh|s/tiles\[0\]\[i\]\[0\] = acc\[4 \* i\] \+ other.x/tiles[0][i][0] = acc[4 * i]/|step3_w4a16|^step3_wgmma_shape_129x4100x4224$|gpu
wgmma_skips_pdl_wait|step3_w4a16/kernels/07_wgmma_g128.cuh|s/\n    wait_for_prerequisite_grids\(\);\n/\n/|step3_w4a16|^step3_wgmma_shape_129x4100x4224$|gpu
mma_g128_skips_pdl_wait|step3_w4a16/kernels/04_mma_g128.cuh|s/\n    wait_for_prerequisite_grids\(\);[^\n]*\n/\n/|step3_w4a16|^step3_wgmma_shape_37x4100x4224$|gpu
gemv_mma_skips_pdl_wait|common/gemv_mma.cuh|s/\n    wait_for_prerequisite_grids\(\);\n/\n/|step3_w4a16|^step3_wgmma_shape_3x4100x4224$|gpu
gemv_tma_skips_pdl_wait|common/gemv_tma.cuh|s/\n                wait_for_prerequisite_grids\(\);\n/\n/|step3_w4a16|^step3_wgmma_shape_3x4100x4224$|gpu
gemv_pdl_skips_wait|step4_w4a8/kernels/06_gemv_dp4a.cuh|s/if \(PDL\) wait_for_prerequisite_grids\(\);/if (false) wait_for_prerequisite_grids();/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
gemv_resident_skips_pdl_wait|common/gemv_resident.cuh|s/if \(PDL\) wait_for_prerequisite_grids\(\);/if (false) wait_for_prerequisite_grids();/|step4_w4a8|^step4_shape_3x4100x4224$|gpu
mma_int8_skips_pdl_wait|step4_w4a8/kernels/09_mma_int8.cuh|s/\n    wait_for_prerequisite_grids\(\);\n/\n/|step4_w4a8|^step4_shape_13x4100x4224$|gpu
mma_int8_tma_skips_pdl_wait|step4_w4a8/kernels/11_mma_int8_tma.cuh|s/\n        wait_for_prerequisite_grids\(\);\n/\n/|step4_w4a8|^step4_shape_200x4100x640$|gpu
mma_q4_k_skips_pdl_wait|step4_w4a8/kernels/15_mma_q4_k.cuh|s/\n    wait_for_prerequisite_grids\(\);\n/\n/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
gemv_tma_ring_cap|common/gemv_tma.cuh|s/constexpr int kMaxStages = 16;/constexpr int kMaxStages = 2;/|test_w4a16_cpu|^step3_cpu|cpu
act_rows_counted_long|step4_w4a8/kernels/09_mma_int8.cuh|s/\(M - m0 - r0 \+ kRowStep - 1\) \/ kRowStep/(M - m0 - r0 + kRowStep) \/ kRowStep/|test_w4a8_cpu|^step4_cpu|cpu
tolerance_33x|common/check.h|s/kSumOrderTolerance = 3e-6/kSumOrderTolerance = 1e-4/|test_common|^test_common$|cpu
tolerance_33x_w4a16|common/check.h|s/kSumOrderTolerance = 3e-6/kSumOrderTolerance = 1e-4/|test_w4a16_cpu|^step3_cpu|cpu
tolerance_33x_w4a8|common/check.h|s/kSumOrderTolerance = 3e-6/kSumOrderTolerance = 1e-4/|test_w4a8_cpu|^step4_cpu|cpu
golden_v3_rel_1e-9|common/q4_0_q8_1.h|s/<= 1e-12 \* std::fabs\(golden\)/<= 1e-9 * std::fabs(golden)/|test_w4a8_cpu|^step4_cpu|cpu
golden_v3_either_overflowed|common/q4_0_q8_1.h|s/return !std::isfinite\(ours\) && !std::isfinite\(golden\);/return !std::isfinite(ours) \x7c\x7c !std::isfinite(golden);/|test_w4a8_cpu|^step4_cpu|cpu
golden_gpu_overflow_any|common/q4_0_q8_1.h|s/if \(!std::isfinite\(golden\)\) return !std::isfinite\(got\);/if (!std::isfinite(golden)) return true;/|test_w4a8_cpu|^step4_cpu|cpu
int8_fragment_rows|step4_w4a8/w4a8_mma_layout.h|s/return \{lane \/ 4 \+ 8 \* \(j & 1\), 4 \* \(lane % 4\) \+ e \+ 16 \* \(j >> 1\)\};/return {lane \/ 4 + 8 * (j >> 1), 4 * (lane % 4) + e + 16 * (j & 1)};/|test_w4a8_cpu|^step4_cpu|cpu
int8_word_order|step4_w4a8/w4a8_mma_layout.h|s/\(block % kBlocksPerLoad\) \* 2 \+ word;/word * 2 + block % kBlocksPerLoad;/|test_w4a8_cpu|^step4_cpu|cpu
f16_kstep_lane_order|step3_w4a16/w4a16_formats.h|s/\* 32 \+ lane\) \* kKStepsPerLoad \+ kstep % kKStepsPerLoad;/* kKStepsPerLoad + kstep % kKStepsPerLoad) * 32 + lane;/|test_w4a16_cpu|^step3_cpu|cpu
f16_fragment_halves|step3_w4a16/w4a16_formats.h|s/return \{g \+ 8 \* \(j & 1\), 2 \* t \+ 8 \* \(j >> 1\) \+ h\};/return {g + 8 * (j \& 1), 2 * t + 8 * (j >> 1) + 1 - h};/|test_w4a16_cpu|^step3_cpu|cpu
check_bound_exclusive|common/check.h|s/ok = err <= bound;/ok = err < bound;/|test_common|^test_common$|cpu
check_nan_matches_inf|common/check.h|s/ok = \(std::isnan\(e\) && std::isnan\(g\)\) \x7c\x7c g == e;/ok = !std::isfinite(g);/|test_common|^test_common$|cpu
check_first_scale_only|common/check.h|s/tol.scale \? tol.scale\[i\]/tol.scale ? tol.scale[0]/|test_common|^test_common$|cpu
reference_chunk_short|common/reference_gemm.h|s/n < std::min\(N, n0 \+ kChunk\)/n < std::min(N, n0 + kChunk - 1)/|test_common|^test_common$|cpu
cpu_quantizer_chunk_offset|common/ggml_quants_tensor.h|s/quantize_row_q4_0_ref\(x \+ b0 \* 32,/quantize_row_q4_0_ref(x + chunk * 32,/|test_quants|^test_quants$|cpu
demo_dequantized_unsigned|step4_w4a8/compensation_demo.h|s/v.dequantized \+= d_w \* d_a \* block_signed_sumi\(wq\[b\], aq_dsumq\[b\].qs\);/v.dequantized += d_w * d_a * block_sumi(wq[b], aq_dsumq[b]);/|test_w4a8_cpu|^step4_cpu|cpu
demo_sum_x_from_d_sum_q|step4_w4a8/compensation_demo.h|s/- 8.0 \* fp16_to_fp32\(aq_sumx\[b\].s\)/- 8.0 * fp16_to_fp32(aq_dsumq[b].s)/|test_w4a8_cpu|^step4_cpu|cpu
act_rows_counted_long_gpu|step4_w4a8/kernels/09_mma_int8.cuh|s/\(M - m0 - r0 \+ kRowStep - 1\) \/ kRowStep/(M - m0 - r0 + kRowStep) \/ kRowStep/|step4_w4a8|^step4_memcheck_ragged_tiles_mma_int8$|gpu
g128_reciprocal_of_fp32_range|step3_w4a16/w4a16_formats.h|s/const float inv = s > 0.f \? 1.0f \/ s : 0.f;/const float inv = s > 0.f ? 15.0f \/ (hi - lo) : 0.f;/|test_w4a16_cpu|^step3_cpu|cpu
g128_ties_to_even|step3_w4a16/w4a16_formats.h|s/return \(int\)std::lround\(x\);/return (int)std::nearbyint(x);/|test_w4a16_cpu|^step3_cpu|cpu
goal_kernel_misspelt|scripts/targets.txt|s/\x7c dp4a_tiled \x7c/\x7c dp4a_tiles \x7c/|all|^kernel_names_exist$|cpu
profile_kernel_misspelt|scripts/profiles.txt|s/step4_w4a8 gemv_mma --m 4/step4_w4a8 gemv_mmq --m 4/|all|^kernel_names_exist$|cpu
profile_function_forgotten|scripts/profiles.txt|s/ FUNCTION=w4a16_wgmma//|all|^kernel_names_exist$|cpu
sass_tile_renamed|scripts/sass_mix.txt|s/w4a8_mma_int8<mma_int8::Large>/w4a8_mma_int8<mma_int8::Big>/|all|^kernel_names_exist$|cpu
contender_misspelt|step5_llama_compare/speed_level.h|s/"gemv_resident", "gemv_mma"/"gemv_resident", "gemv_mm"/|all|^kernel_names_exist$|cpu
step3_demo_no_outliers|step3_w4a16/format_comparison.h|s/\*= kOutlierFactor;/*= 1.0f;/|test_w4a16_cpu|^step3_cpu|cpu
step3_demo_half_trick_base|step3_w4a16/format_comparison.h|s/\(uint16_t\)\(0x6400 \x7c q\)/(uint16_t)(0x6000 \x7c q)/|test_w4a16_cpu|^step3_cpu|cpu
auto_arch_specific_off|CMakeLists.txt|s/set\(a "\$\{a\}a"\)/set(a "\$\{a\}")/|test_common|^build_architecture_selection$|cpu
arch_older_than_toolkit|CMakeLists.txt|s/if\(number LESS oldest_arch\)/if(number LESS 0)/|test_common|^build_architecture_selection$|cpu
act_first_row_modulo|step4_w4a8/kernels/09_mma_int8.cuh|s/return thread \/ kPiecesPerRow; \}/return thread % kPiecesPerRow; }/|test_w4a8_cpu|^step4_cpu|cpu
fragment_figure_drift|step3_w4a16/w4a16_formats.h|s/return \{g \+ 8 \* \(j & 1\), 2 \* t \+ 8 \* \(j >> 1\) \+ h\};/return {g + 8 * (j >> 1), 2 * t + 8 * (j \& 1) + h};/|fragment_layouts|^fragment_figures_match_code$|cpu
chapters_left_stale|scripts/update_readme_results.py|s/root.glob\("\*\*\/\*.md"\)/root.glob("**\/README.md")/|test_common|^readme_updater_refuses_bad_logs$|cpu
stalls_block_unlabelled|scripts/update_readme_results.py|s/"stalls": "scripts\/profile.sh --by-line", //|test_common|^readme_updater_refuses_bad_logs$|cpu
profile_by_line_ignored|scripts/profile.sh|s/then by_line=1; shift; fi/then shift; fi/|test_common|^profile_script$|cpu
stalls_kernel_misspelt|scripts/stalls.txt|s/step3_w4a16 gemv_tma_g128 /step3_w4a16 gemv_tma_g12 /|all|^kernel_names_exist$|cpu
stalls_by_line_predicate_kept|scripts/stalls_by_line.py|s/words = words\[1:\]/words = words/|test_common|^stalls_by_line_script$|cpu
snippet_stale|common/q4_0_q8_1.h|s/-mul_rn\(8.0f, s\)/mul_rn(8.0f, s)/|test_common|^readme_snippets_current$|cpu
q4_k_scale_min_high_bits_swapped|common/ggml_kquants.h|s/scale = \(packed\[j \+ 4\] & 0xF\) \x7c \(\(packed\[j - 4\] >> 6\) << 4\);\n(\s+)min = \(packed\[j \+ 4\] >> 4\) \x7c \(\(packed\[j\] >> 6\) << 4\);/scale = (packed[j + 4] \& 0xF) \x7c ((packed[j] >> 6) << 4);\n$1min = (packed[j + 4] >> 4) \x7c ((packed[j - 4] >> 6) << 4);/|test_kquants|^test_kquants$|cpu
q4_k_min_sign|common/ggml_kquants.h|s/\*y\+\+ = scale \* q4_k_code\(x\[b\], i\) - min;/*y++ = scale * q4_k_code(x[b], i) + min;/|test_kquants|^test_kquants$|cpu
q4_k_next_subblock_scale|common/ggml_kquants.h|s/kquants::q4_k_scale_min\(j, x\[b\].scales, sc, m\);/kquants::q4_k_scale_min((j + 1) % 8, x[b].scales, sc, m);/|test_kquants|^test_kquants$|cpu
q6_k_last_superblock_dropped|common/ggml_kquants.h|s/int8_t codes\[QK_K\];\n/int8_t codes[QK_K];\n        if (b == k \/ QK_K - 1) break;\n/|test_kquants|^test_kquants$|cpu
q4_k_q8_1_min_sign|common/q4_k_q8_1.h|s/ - dmin \* m \* fp16_to_fp32\(aj.s\);/ + dmin * m * fp16_to_fp32(aj.s);/|test_kquants|^test_kquants$|cpu
q4_k_subblock_nibble_half|common/ggml_kquants.h|s/return \(i % 64\) < 32 \? byte & 0xF : byte >> 4;/return (i % 64) < 32 ? byte >> 4 : byte \& 0xF;/|test_kquants|^test_kquants$|cpu
q4_k_repack_high_half|common/q4_k_layout.h|s/q4_k_code\(blocks\[b\], 32 \* j \+ l \+ 16\) << 4/q4_k_code(blocks[b], 32 * j + l + 15) << 4/|test_kquants|^test_kquants$|cpu
q4_k_unpack_odd_subblock|common/q4_k_layout.h|s/\(j % 2 == 0\) \?/(j % 2 == 1) ?/|test_kquants|^test_kquants$|cpu
q6_k_q8_1_first_scale_twice|common/q6_k_q8_1.h|s/w\[b\].scales\[2 \* j \+ 1\] \* q6_k_subblock_sumi/w[b].scales[2 * j] * q6_k_subblock_sumi/|test_kquants|^test_kquants$|cpu
q6_k_q8_1_second_half_activations|common/q6_k_q8_1.h|s/aj.qs \+ 16\)/aj.qs)/|test_kquants|^test_kquants$|cpu
q6_k_run_second_half_top_bits|common/q6_k_layout.h|s/>> \(2 \* \(i \/ 2 \+ 2\)\)/>> (2 * (i \/ 2 + 1))/|test_kquants|^test_kquants$|cpu
q6_k_repack_high_pair|common/q6_k_layout.h|s/high\[l % 8\] \x7c= \(uint8_t\)\(\(q >> 4\) << \(2 \* \(l \/ 8\)\)\);/high[l % 8] \x7c= (uint8_t)((q >> 4) << (2 * (l \/ 8) \^ 2));/|test_kquants|^test_kquants$|cpu
q4_k_lane_min_high_bits_from_scale|common/q4_k_layout.h|s/min = \(int\)\(\(byte >> 2 & 0x30\)/min = (int)((byte \& 0x30)/|test_kquants|^test_kquants$|cpu
q4_k_lane_header_scale_high_bits|common/q4_k_layout.h|s/out\[4 \+ j\] = \(uint8_t\)\(sc \x7c \(m >> 4\) << 6\);/out[4 + j] = (uint8_t)(sc \x7c (sc >> 4) << 6);/|test_kquants|^test_kquants$|cpu
resident_transposed_keep|common/warp_reduce.cuh|s/const float keep = select_no_branch\(upper, v\[i \+ N \/ 2\], v\[i\]\);/const float keep = select_no_branch(upper, v[i], v[i + N \/ 2]);/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
gemv_q4_k_min_sign|step4_w4a8/kernels/12_gemv_q4_k.cuh|s/-w.dmin_m \* a.s/w.dmin_m * a.s/|step4_w4a8|^step4_shape_1x4100x4352$|gpu
gemv_mma_q4_k_min_sign|step4_w4a8/kernels/14_gemv_mma_q4_k.cuh|s/fmaf\(-dmin_m, a.y/fmaf(dmin_m, a.y/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
gemv_mma_q4_k_row_g_scales|step4_w4a8/kernels/14_gemv_mma_q4_k.cuh|s/\(int\)\(sm >> \(16 \* r\)\) & 0xFF/(int)sm \& 0xFF/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
gemv_mma_q4_k_super_block_of_slice|step4_w4a8/kernels/14_gemv_mma_q4_k.cuh|s/\(first_chunk \+ codes.j\) \/ kChunksPerSuper/codes.j \/ kChunksPerSuper/|step4_w4a8|^step4_shape_1x4100x4352$|gpu
gemv_mma_q4_k_pairs_even_scales|step4_w4a8/kernels/14_gemv_mma_q4_k.cuh|s/odd \? w\[t\].w.d\[1\] : w\[t\].w.d\[0\]/w[t].w.d[0]/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
mma_q4_k_min_sign|step4_w4a8/kernels/15_mma_q4_k.cuh|s/fmaf\(-d_dmin\[tn\]\[i \/ 2\].y, ms\[i\]/fmaf(d_dmin[tn][i \/ 2].y, ms[i]/|step4_w4a8|^step4_shape_37x4100x4352$|gpu
mma_q4_k_skip_last_k_tile|step4_w4a8/kernels/15_mma_q4_k.cuh|s/cp_async_pipeline<C::kStages>\(\n(\s+)k_tiles,/cp_async_pipeline<C::kStages>(\n$1k_tiles - 1,/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_super_of_warp|step4_w4a8/kernels/15_mma_q4_k.cuh|s/C::kBK >= QK_K \? wk \* kWarpK \/ QK_K : 0;/0;/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
mma_q4_k_d_dmin_every_stage|step4_w4a8/kernels/15_mma_q4_k.cuh|s/C::kSupers \* 4, C::kStagesPerSuper>/C::kSupers * 4>/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_row_g_scales|step4_w4a8/kernels/15_mma_q4_k.cuh|s/outer_product_split_times2\(scale, dsc.x, dsc.y, da\[tm\]\)/outer_product_split_times2(scale, dsc.x, dsc.x, da[tm])/|step4_w4a8|^step4_shape_16x4100x4352$|gpu
mma_q4_k_row_g_minimums|step4_w4a8/kernels/15_mma_q4_k.cuh|s/byte_times<3>\(sm, kAccumulatorScale, minus_magic\)/byte_times<1>(sm, kAccumulatorScale, minus_magic)/|step4_w4a8|^step4_shape_37x4100x4352$|gpu
mma_q4_k_minimums_not_doubled|step4_w4a8/kernels/15_mma_q4_k.cuh|s/minus_magic_times\(kAccumulatorScale\);(\s+m_row_g = __float_as_uint\(byte_times<1>\(sm, )kAccumulatorScale(, minus_magic\)\);\s+m_row_g8 = __float_as_uint\(byte_times<3>\(sm, )kAccumulatorScale/minus_magic_times(1.0f);${1}1.0f${2}1.0f/|step4_w4a8|^step4_shape_37x4100x4352$|gpu
outer_product_split_drops_rest|common/mma.cuh|s/return __float_as_uint\(rest \? u - top : top\);/return __float_as_uint(rest ? 0.f : top);/|step4_w4a8|^step4_shape_16x4100x4352$|gpu
mma_q4_k_minimum_token|step4_w4a8/kernels/15_mma_q4_k.cuh|s/a_s\[\(\(wm \* C::kTilesM \+ tm\) \* 8 \+ g\) \* C::kScaleBlocks/a_s[((wm * C::kTilesM + tm) * 8 + 2 * t) * C::kScaleBlocks/|step4_w4a8|^step4_shape_37x4100x4352$|gpu
mma_q4_k_next_sub_block_scales|step4_w4a8/kernels/15_mma_q4_k.cuh|s/\(\(t \* C::kBlocks \+ block\) \* 8 \+ g\) \* 8/((t * C::kBlocks + (block + 1) % C::kBlocks) * 8 + g) * 8/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_s_from_d|step4_w4a8/kernels/15_mma_q4_k.cuh|s/act_s.load\(stage, kt, p.K, p.a_s\)/act_s.load(stage, kt, p.K, p.a_d)/|step4_w4a8|^step4_shape_37x4100x4352$|gpu
mma_q4_k_super_words_every_stage|step4_w4a8/kernels/15_mma_q4_k.cuh|s/C::kScaleBlocks \* 2, C::kStagesPerScales> sub_scales/C::kScaleBlocks * 2> sub_scales/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_d_sc_every_other_stage|step4_w4a8/kernels/15_mma_q4_k.cuh|s/C::kRowTiles \* C::kBlocks \* 4, C::kBlocks \* 4> d_sc/C::kRowTiles * C::kBlocks * 4, C::kBlocks * 4, 2> d_sc/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_super_minimums_of_t|step4_w4a8/kernels/15_mma_q4_k.cuh|s/words \+ \(t \+ 4 \* h\) \* 32/words + t * 32/|step4_w4a8|^step4_shape_513x4100x768$|gpu
mma_q4_k_super_s_of_t|step4_w4a8/kernels/15_mma_q4_k.cuh|s/__float_as_uint\(s_of_token\[t \+ 4\]\)/__float_as_uint(s_of_token[t])/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
mma_q4_k_super_min_sign|step4_w4a8/kernels/15_mma_q4_k.cuh|s/mma_m16n8k8_tf32_f32\(ms, m\[tn\], s\);\n(.*\n\s+)for \(int i = 0; i < 4; \+\+i\) acc\[tn\]\[tm\]\[i\] = fmaf\(-d_dmin/mma_m16n8k8_tf32_f32(ms, m[tn], s);\n$1for (int i = 0; i < 4; ++i) acc[tn][tm][i] = fmaf(d_dmin/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
wide_fp32_s_unrounded|common/ggml_quants_gpu.cuh|s/if \(s_f32\) s_f32\[b\] = fp16_to_fp32\(s_half\);/if (s_f32) s_f32[b] = mul_rn((float)sum_q, d);/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
gemv_q4_k_next_subblock_scale|step4_w4a8/kernels/12_gemv_q4_k.cuh|s/q4_k_lane_scale_min\(j, sc_word/q4_k_lane_scale_min((j + 1) % 8, sc_word/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
gemv_q4_k_last_superblock_dropped|common/gemv_resident.cuh|s/const bool has_block = block < p.K \/ 32;/const bool has_block = block < p.K \/ 32 - 8;/|step4_w4a8|^step4_memcheck_gemv_q4_k_3x4101x4352$|gpu
gemv_q6_k_halves_swapped|step4_w4a8/kernels/13_gemv_q6_k.cuh|s/\(int8_t\)\(w.scales & 0xFF\) \* first/(int8_t)(w.scales \& 0xFF) * second/|step4_w4a8|^step4_shape_1x4100x4352$|gpu
gemv_q6_k_next_run_scales|step4_w4a8/kernels/13_gemv_q6_k.cuh|s/reinterpret_cast<const unsigned short\*>\(p.scales\) \+ run\)/reinterpret_cast<const unsigned short*>(p.scales) + (run \/ kQ6KRuns) * kQ6KRuns + (run + 1) % kQ6KRuns)/|step4_w4a8|^step4_shape_3x4100x4352$|gpu
noise_margin_zero|scripts/update_targets.py|s/NOISE = 0.02 /NOISE = 0.0 /|test_common|^update_targets_fills_readmes$|cpu
repeats_best_run|scripts/results_csv.py|s/statistics.median_low\(/min(/|test_common|^update_targets_fills_readmes$|cpu
repeats_failure_outvoted|scripts/results_csv.py|s/row = next\(\(r for r in bad if r\["status"\] != "PASS"\), bad\[0\]\)/row = next((r for r in runs if r not in bad), bad[0])/|test_common|^update_targets_fills_readmes$|cpu
bench_repeat_unchecked|scripts/bench_all.sh|s/if ! \[\[ \$repeat =~/if [[ \$repeat =~/|test_common|^bench_all_without_gpu$|cpu
course_plan_heading_renamed|step5_llama_compare/README.md|s/## The four levels/## Four levels/|test_common|^course_plan_references_exist$|cpu
host_overrun_butterfly|common/ggml_quants.h|s/for \(int j = 0; j < 32; \+\+j\) v\[j\] = x\[j\];/for (int j = 0; j <= 32; ++j) v[j] = x[j];/|test_common|^host_code_under_sanitizers$|cpu
course_plan_question_renumbered|step3_w4a16/README.md|s/\n8\. \*\*Loads or math\?/\n**Loads or math?/|test_common|^course_plan_references_exist$|cpu
lab_notes_heading_renamed|step4_w4a8/LAB_NOTES.md|s/## The quantizer /## Quantizer /|test_common|^section_references_exist$|cpu
lesson_command_kernel_misspelt|step4_w4a8/README.md|s/--kernel naive,dp4a_tiled/--kernel naive,dp4a_tile/|all|^kernel_names_exist$|cpu
row_block_tile_order|common/row_blocks.h|s/\* block_tiles \+ j\) \* words_per_piece/+ j * pieces_per_tile) * words_per_piece/|test_w4a8_cpu|^step4_cpu_formula_and_golden_dots$|cpu
wgmma_int8_producer_phase|step4_w4a8/kernels/16_wgmma_int8.cuh|s/wait_barrier\(&empty\[s\], \(i \/ C::kStages - 1\) & 1\)/wait_barrier(\&empty[s], (i \/ C::kStages) \& 1)/|step4_w4a8|^step4_shape_129x4100x4352$|gpu
split_tail_drops_last_piece|common/split_tail.cuh|s/if \(p < s.parts\) total/if (p + 1 < s.parts) total/|step4_w4a8|^step4_shape_129x8500x512$|gpu
split_tail_short_last_piece|common/split_tail.cuh|s/\(piece \+ 1\) \* s.k_steps \/ s.parts\}/(piece + 1) * s.k_steps \/ s.parts - (piece + 1 == s.parts)}/|step4_w4a8|^step4_shape_513x4100x768$|gpu
split_tail_pieces_one_slot|common/split_tail.cuh|s/\* s.parts \+ w.piece\)/* s.parts + 0)/|step4_w4a8|^step4_shape_129x8500x512$|gpu
split_tail_sum_grid_short|common/split_tail.cuh|s/return dim3\(s.tail, VALUES \/ 4\);/return dim3(s.tail, VALUES \/ 4 - 1);/|step4_w4a8|^step4_shape_200x4100x640$|gpu
split_tail_skips_last_tile|common/split_tail.cuh|s/return \{s.whole \+ t, piece,/return {s.whole + t - (t + 1 == s.tail), piece,/|step4_w4a8|^step4_shape_1100x4100x640$|gpu
split_tail_short_last_piece_cpu|common/split_tail.cuh|s/\(piece \+ 1\) \* s.k_steps \/ s.parts\}/(piece + 1) * s.k_steps \/ s.parts - (piece + 1 == s.parts)}/|test_common|^test_common$|cpu
split_tail_skips_last_tile_cpu|common/split_tail.cuh|s/return \{s.whole \+ t, piece,/return {s.whole + t - (t + 1 == s.tail), piece,/|test_common|^test_common$|cpu
split_tail_one_wave_unsplit_cpu|common/split_tail.cuh|s/if \(tail == 0\) return s;/if (tail == 0) return s;\n    if (tiles <= sms) return s;/|test_common|^test_common$|cpu
split_tail_workspace_one_piece_cpu|common/split_tail.cuh|s/std::max\(sms - 1, 0\) \* kMaxSplitParts \* tile_values/std::max(sms - 1, 0) * tile_values/|test_common|^test_common$|cpu
wgmma_int8_products_accumulate|common/wgmma.cuh|s/setp.ne.b32 accumulate, 0, 0;/setp.ne.b32 accumulate, 1, 0;/|step4_w4a8|^step4_shape_129x4100x128$|gpu
wgmma_int8_row_block_stride|step4_w4a8/kernels/16_wgmma_int8.cuh|s/\(size_t\)row_block \* \(K \/ C::kBK\) \+ kt/(size_t)row_block + kt/|step4_w4a8|^step4_shape_200x4100x640$|gpu
wgmma_int8_skips_pdl_wait|step4_w4a8/kernels/16_wgmma_int8.cuh|s/\n    wait_for_prerequisite_grids\(\);\n/\n/|step4_w4a8|^step4_shape_200x4100x640$|gpu
TABLE
)

# A kernel edited since its mutation was written leaves a bug that is never planted; a test renamed
# since leaves one that nothing runs (a SKIP, "none ran without the bug", never a failure).
if [ "${1:-}" = --check ]; then
  bad=0 unnamed=0 tests_known=""
  [ -n "${2:-}" ] && tests_known=$(cd "$2" && ctest -N | sed -nE 's/^ *Test +#[0-9]+: (.*)$/\1/p')
  while IFS='|' read -r name file subst target tests need; do
    [ -z "$name" ] && continue
    if [ ! -f "$file" ] || perl -0pe "$subst" "$file" | cmp -s - "$file"; then echo "does not apply: $name ($file)"; bad=$((bad + 1)); fi
    if [ -n "$tests_known" ] && ! grep -qE "$tests" <<<"$tests_known"; then echo "names no test: $name ($tests)"; unnamed=$((unnamed + 1)); fi
  done <<<"$MUTATIONS"
  echo "mutation table: $(grep -c '|' <<<"$MUTATIONS") substitutions, $bad do not apply${2:+, $unnamed name no test in $2}"
  [ $bad -eq 0 ] && [ $unnamed -eq 0 ]; exit
fi

have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
# --pack and --from: the tree at one absolute path on both machines, since CMake writes absolute paths
case $mode in
  test) scratch=$(mktemp -d) ;;
  pack) scratch=$(realpath -m "${MUTATION_PACK_ROOT:-/tmp/qgf-mutation-pack}") ;;
  from)
    marker=$(tar -tf "$pack_file" 2>/dev/null | grep -E '(^|/)\.qgf-mutation-pack$') || { echo "not a pack: $pack_file" >&2; exit 2; }
    marker=${marker%%$'\n'*} marker=${marker#./} scratch=/${marker%.qgf-mutation-pack} scratch=${scratch%/}
    [ -n "$scratch" ] || { echo "not a pack (its tree would be /): $pack_file" >&2; exit 2; } ;;
esac
if [ "$mode" != test ] && [ -e "$scratch" ]; then  # a pack's tree left by an earlier run, and nothing else, is replaced
  if [ ! -f "$scratch/.qgf-mutation-pack" ] && [ -n "$(ls -A "$scratch")" ]; then
    echo "$scratch is not a pack's tree: not replacing it" >&2; exit 2
  fi
  rm -rf "$scratch"
fi
trap 'rm -rf "$scratch"' EXIT
packed=$scratch/packed  # per packed row its target's binary (packed/NAME/TARGET), the unmutated ones (packed/baseline/), rows.txt
if [ "$mode" = from ]; then
  if ! tar -xf "$pack_file" -C / || [ ! -f "$packed/rows.txt" ]; then echo "could not unpack $pack_file" >&2; exit 1; fi
  MUTATIONS=$(cat "$packed/rows.txt")
else
  mkdir -p "$scratch"
  [ "$mode" = pack ] && touch "$scratch/.qgf-mutation-pack"
  git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T - | tar -xf - -C "$scratch"
  cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DCUDA_ARCH="${CUDA_ARCH:-}" >"$scratch/configure.log" 2>&1 ||
    { tail "$scratch/configure.log"; exit 1; }
fi
grep -h "architectures" "$scratch/configure.log"
jobs=$(nproc 2>/dev/null || echo 2)

caught=0 missed=0 skipped=0
# Each row's verdict is printed as it is reached, so that a run cut short still says what it found.
verdict() { printf '%s\n' "$1"; }
declare -A baseline  # "target|tests" -> the tests that did not fail on the unmutated tree, or "!" if any failed
# The tests of a ctest log that passed or were skipped (exit 77: no GPU); a skipped test that fails
# once the bug is planted was failed by the bug (a shape check that runs before the GPU is opened).
ok_tests() { sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *(Passed|\*\*\*Skipped) .*/\1/p' "$1" | sort; }
# The unmutated tree's verdict on baseline key $1 ("target|tests"), once per key; --from builds nothing.
ensure_baseline() {
  local key=$1 target=${1%%|*} tests=${1#*|}
  [ -n "${baseline[$key]+set}" ] && return
  if { [ "$mode" = from ] || cmake --build "$scratch/build" --target "$target" -j "$jobs" >"$scratch/build.log" 2>&1; } &&
     (cd "$scratch/build" && ctest -R "$tests" --output-on-failure) >"$scratch/baseline.log" 2>&1; then
    baseline[$key]=$(ok_tests "$scratch/baseline.log" | paste -sd' ')
  else
    baseline[$key]="!"
  fi
}
# Whether the tests that passed without the bug (baseline key $1) still pass in the build at $2,
# given its ctest log $3: prints the verdict for mutation $4 (file $5).
judge() {
  local key=$1 build=$2 log=$3 name=$4 file=$5 tests=${1#*|} now_failing
  (cd "$build" && ctest -R "$tests" --timeout "${MUTATION_TEST_TIMEOUT:-900}" --output-on-failure) >"$log" 2>&1
  now_failing=$(comm -23 <(tr ' ' '\n' <<<"${baseline[$key]}" | sort) <(ok_tests "$log") | paste -sd, -)
  if [ -n "$now_failing" ]; then
    verdict "caught  $name by $now_failing"; caught=$((caught + 1))
  else
    verdict "MISSED  $name: $tests passed with the bug in $file"; missed=$((missed + 1))
  fi
}
# Plant row $1's bug (file $2, substitution $3) in the scratch tree and rebuild target $4, then put
# the file back: 0 built, 2 the substitution did not apply, 1 the tree did not compile.
plant_and_build() {
  local name=$1 file=$2 subst=$3 target=$4 rc=0
  cp "$scratch/$file" "$scratch/original"
  perl -0pi -e "$subst" "$scratch/$file"
  if cmp -s "$scratch/$file" "$scratch/original"; then
    rc=2
  elif ! cmake --build "$scratch/build" --target "$target" -j "$jobs" >"$scratch/build.log" 2>&1; then
    rc=1
  fi
  cp "$scratch/original" "$scratch/$file"
  return $rc
}
# Why a row was not judged, from plant_and_build's status $2 (or the copy's status word).
not_built() {
  case $2 in
    2 | unapplied) verdict "ERROR   $1: the substitution did not apply to $3" ;;
    *) verdict "ERROR   $1: the mutated tree did not compile" ;;
  esac
  missed=$((missed + 1))
}
# MUTATION_PARALLEL > 1: each mutated tree is a copy of its own, configured and built beside the
# others (N at a time); the tests then run one mutation after another. Writes $dir/status.
build_copy() {
  local dir=$1 file=$2 subst=$3 target=$4
  mkdir -p "$dir" && tar -C "$scratch" --exclude=./build --exclude=./mutants -cf - . | tar -C "$dir" -xf -
  perl -0pi -e "$subst" "$dir/$file"
  if cmp -s "$dir/$file" "$scratch/$file"; then echo "unapplied" >"$dir/status"; return; fi
  if cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCUDA_ARCH="${CUDA_ARCH:-}" >"$dir/build.log" 2>&1 &&
     cmake --build "$dir/build" --target "$target" -j 2 >>"$dir/build.log" 2>&1; then
    echo "built" >"$dir/status"
  else
    echo "broken" >"$dir/status"
  fi
}
parallel=${MUTATION_PARALLEL:-1}
pending=()  # with MUTATION_PARALLEL > 1: the rows whose copies are being built
while IFS='|' read -r name file subst target tests need; do
  [ -z "$name" ] && continue
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  key="$target|$tests"
  if [ "$mode" = pack ]; then  # build only: the unmutated target once, then this row's
    if [ ! -x "$packed/baseline/$target" ]; then
      if ! cmake --build "$scratch/build" --target "$target" -j "$jobs" >"$scratch/build.log" 2>&1; then
        tail "$scratch/build.log"; echo "the unmutated $target did not compile"; exit 1
      fi
      mkdir -p "$packed/baseline" && cp "$scratch/build/$target" "$packed/baseline/"
    fi
    plant_and_build "$name" "$file" "$subst" "$target"; rc=$?
    if [ $rc -ne 0 ]; then not_built "$name" $rc "$file"; continue; fi
    mkdir -p "$packed/$name" && cp "$scratch/build/$target" "$packed/$name/"
    printf '%s|%s|%s|%s|%s|%s\n' "$name" "$file" "$subst" "$target" "$tests" "$need" >>"$packed/rows.txt"
    verdict "packed  $name ($target)"
    continue
  fi
  if [ "$need" = gpu ] && [ $have_gpu -eq 0 ]; then verdict "SKIP    $name (needs a GPU)"; skipped=$((skipped + 1)); continue; fi
  ensure_baseline "$key"
  if [ "${baseline[$key]}" = "!" ]; then
    verdict "BASELINE $name: $tests fail without the bug (see the tests on an unmutated tree)"; missed=$((missed + 1)); continue
  fi
  if [ -z "${baseline[$key]}" ]; then verdict "SKIP    $name ($tests: none ran without the bug)"; skipped=$((skipped + 1)); continue; fi
  if [ "$mode" = from ]; then  # the packed binary in place of the unmutated one, for its tests only
    cp "$packed/$name/$target" "$scratch/build/$target"
    judge "$key" "$scratch/build" "$scratch/test.log" "$name" "$file"
    cp "$packed/baseline/$target" "$scratch/build/$target"
    continue
  fi
  if [ "$parallel" -gt 1 ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
    build_copy "$scratch/mutants/$name" "$file" "$subst" "$target" &
    pending+=("$name|$file|$key")
    continue
  fi
  plant_and_build "$name" "$file" "$subst" "$target"; rc=$?
  if [ $rc -ne 0 ]; then not_built "$name" $rc "$file"; continue; fi
  judge "$key" "$scratch/build" "$scratch/test.log" "$name" "$file"
done <<<"$MUTATIONS"
wait
for row in "${pending[@]}"; do
  IFS='|' read -r name file target tests <<<"$row"
  dir=$scratch/mutants/$name
  status=$(cat "$dir/status" 2>/dev/null)
  if [ "$status" = built ]; then judge "$target|$tests" "$dir/build" "$dir/test.log" "$name" "$file"; else not_built "$name" "$status" "$file"; fi
done
if [ "$mode" = pack ]; then
  [ -s "$packed/rows.txt" ] || { echo "nothing packed"; exit 1; }
  for b in "$packed"/baseline/*; do cp "$b" "$scratch/build/"; done  # the build holds the unmutated binaries
  # xz with a window that spans several binaries: a mutant differs from its neighbours in places only (51 MB -> 28 MB for 18 rows)
  XZ_OPT=${XZ_OPT:---lzma2=preset=6,dict=192MiB} tar -caf "$pack_file" -C / --exclude="${scratch#/}/build/CMakeFiles" --exclude="${scratch#/}/original" "${scratch#/}" ||
    { echo "could not write $pack_file"; exit 1; }
  echo "packed $(wc -l <"$packed/rows.txt") rows into $pack_file ($(du -h "$pack_file" | cut -f1)); on a GPU machine: $0 --from FILE"
  [ $missed -eq 0 ]; exit
fi
echo "mutations: $caught caught, $missed missed or broken, $skipped skipped"
[ $missed -eq 0 ]
