# Step 1 tests (included by the top-level CMakeLists.txt).
add_gpu_test(step1_lesson_cases step1_fp32)
add_gpu_test(step1_awkward_37x4100x4100 step1_fp32 --m 37 --n 4100 --k 4100)
add_gpu_test(step1_gemv_1x4100x4100 step1_fp32 --m 1 --n 4100 --k 4100)
add_gpu_test(step1_gemv_small_1x7x36 step1_fp32 --m 1 --n 7 --k 36)
add_gpu_test(step1_odd_k_33x130x1001 step1_fp32 --m 33 --n 130 --k 1001)
add_gpu_test(step1_tile_edges_129x257x72 step1_fp32 --m 129 --n 257 --k 72)
add_gpu_test(step1_one_element step1_fp32 --m 1 --n 1 --k 1)
# gemv_split_k picks 1, 2, 4 or 8 warps per row from N and the SM count; on the H200 (132 SMs)
# these shapes give 2 and 4 (4100 gives 1, 7 gives 8, above).
add_gpu_test(step1_gemv_split2_1x2000x4100 step1_fp32 --m 1 --n 2000 --k 4100)
add_gpu_test(step1_gemv_split4_1x1000x4100 step1_fp32 --m 1 --n 1000 --k 4100)
# Sizes past CUDA's 65535 limit on grid.y: the kernels that cannot launch them print SKIP rows.
add_gpu_test(step1_grid_limit_1x2200000x4 step1_fp32 --m 1 --n 2200000 --k 4)
add_gpu_test(step1_grid_limit_8400000x1x4 step1_fp32 --m 8400000 --n 1 --k 4)

# Canaries: deliberately wrong kernels (canaries.cuh) that the check must reject.
foreach(canary skip_last_k_tile skip_one_store store_twice tf32_inputs)
  add_canary_test(step1_canary_${canary} step1_fp32 canary_${canary} --m 37 --n 4100 --k 4100)
endforeach()
# And at a short K, where TF32's error relative to sum|aw| is largest (it shrinks like 1/sqrt(K)).
add_canary_test(step1_canary_tf32_inputs_k256 step1_fp32 canary_tf32_inputs --m 37 --n 4100 --k 256)

# compute-sanitizer on awkward shapes: out-of-bounds accesses (memcheck) and shared-memory races.
add_sanitizer_test(step1_memcheck_33x130x1001 memcheck step1_fp32 --m 33 --n 130 --k 1001)
add_sanitizer_test(step1_memcheck_129x257x72 memcheck step1_fp32 --m 129 --n 257 --k 72)
add_sanitizer_test(step1_memcheck_gemv_1x1000x260 memcheck step1_fp32 --m 1 --n 1000 --k 260)
add_sanitizer_test(step1_racecheck_129x257x72 racecheck step1_fp32 --m 129 --n 257 --k 72)
add_sanitizer_test(step1_racecheck_gemv_1x1000x260 racecheck step1_fp32 --m 1 --n 1000 --k 260)

add_exit_code_test(step1_cli_help 0 step1_fp32 --help)
add_exit_code_test(step1_cli_list 0 step1_fp32 --list)
add_cli_table_test(step1_cli_bad_command_lines step1_fp32 ${CMAKE_SOURCE_DIR}/step1_fp32/bad_command_lines.txt)

# Exercises: each slot fails as a stub (or passes once written); each solution passes.
add_exercise_tests(step1_fp32 ex1 --m 37 --n 100 --k 4100)
add_exercise_tests(step1_fp32 ex2 --m 1 --n 4100 --k 4100)
