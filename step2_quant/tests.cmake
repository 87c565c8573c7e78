# Step 2 tests (included by the top-level CMakeLists.txt).
# CPU: every golden case byte-exact, and the file tool end to end (no GPU needed).
add_test(NAME step2_golden_cpu COMMAND step2_quant --golden ${CMAKE_SOURCE_DIR}/common/golden)
set_tests_properties(step2_golden_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME step2_golden_kquants_cpu COMMAND step2_quant --golden ${CMAKE_SOURCE_DIR}/common/golden_kquants)
set_tests_properties(step2_golden_kquants_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME step2_file_tool COMMAND bash ${CMAKE_SOURCE_DIR}/step2_quant/test_file_tool.sh $<TARGET_FILE:step2_quant>
                                      ${CMAKE_SOURCE_DIR}/common/golden)
set_tests_properties(step2_file_tool PROPERTIES LABELS cpu TIMEOUT 300)
# The golden folder is held to its manifest.json: a case, a file or bytes gone, a broken manifest.
add_test(NAME step2_golden_manifest COMMAND bash ${CMAKE_SOURCE_DIR}/tests/test_golden_manifest.sh $<TARGET_FILE:step2_quant>
                                            ${CMAKE_SOURCE_DIR}/common/golden)
set_tests_properties(step2_golden_manifest PROPERTIES LABELS cpu TIMEOUT 300)

# GPU: quantizers byte-equal to the CPU reference (golden cases + a tensor); odd shapes too.
add_gpu_test(step2_lesson step2_quant)
add_gpu_test(step2_tensor_37x4128 step2_quant --n 37 --k 4128)
add_gpu_test(step2_tensor_1x32 step2_quant --n 1 --k 32)
add_gpu_test(step2_tensor_3x96 step2_quant --n 3 --k 96)

# Canaries: deliberately wrong quantizers (canaries.cuh) that the byte checks must reject.
foreach(canary q8_1_skip_last_block q8_0_skip_minus_one q8_0_skip_zero)
  add_canary_test(step2_canary_${canary} step2_quant canary_${canary} --n 37 --k 4128)
endforeach()

add_sanitizer_test(step2_memcheck_37x4128 memcheck step2_quant --n 37 --k 4128)
add_sanitizer_test(step2_memcheck_3x96 memcheck step2_quant --n 3 --k 96)
add_sanitizer_test(step2_racecheck_37x4128 racecheck step2_quant --n 37 --k 4128)
add_cli_table_test(step2_cli_bad_command_lines step2_quant ${CMAKE_SOURCE_DIR}/step2_quant/bad_command_lines.txt
                   GOLDEN=${CMAKE_SOURCE_DIR}/common/golden)

# Exercises: each slot fails as a stub (or passes once written); each solution passes (golden
# cases and a 37 x 4128 tensor).
add_exercise_tests(step2_quant ex1 --n 37 --k 4128)
add_exercise_tests(step2_quant ex2 --n 37 --k 4128)
