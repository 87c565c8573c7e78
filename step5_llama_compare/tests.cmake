# Step 5 tests (included by the top-level CMakeLists.txt).
# CPU, in CI: levels 1-3 on every golden case; one case through --golden; corrupted copies of a
# case rejected (the checks can fail).
add_test(NAME step5_cpu_levels COMMAND step5_llama_compare --cpu-only)
set_tests_properties(step5_cpu_levels PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME step5_cpu_golden_one_case COMMAND step5_llama_compare --cpu-only --golden ${CMAKE_SOURCE_DIR}/common/golden/normal_s1)
set_tests_properties(step5_cpu_golden_one_case PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME step5_cpu_corrupted_golden_rejected
         COMMAND bash ${CMAKE_SOURCE_DIR}/step5_llama_compare/test_corrupted_golden.sh $<TARGET_FILE:step5_llama_compare>
                 ${CMAKE_SOURCE_DIR}/common/golden/normal_s1)
set_tests_properties(step5_cpu_corrupted_golden_rejected PROPERTIES LABELS cpu TIMEOUT 300)

# GPU: the same levels with the GPU quantizers and step 4's kernel; exit 77 without a GPU.
# --check-only: level 4 (speed: steps 3 and 4 timed at llama.cpp's shapes) is for the benchmark run.
add_gpu_test(step5_gpu_levels step5_llama_compare)
add_sanitizer_test(step5_memcheck memcheck step5_llama_compare)  # add_sanitizer_test adds --check-only

add_exit_code_test(step5_cli_help 0 step5_llama_compare --help)
add_cli_table_test(step5_cli_bad_command_lines step5_llama_compare ${CMAKE_SOURCE_DIR}/step5_llama_compare/bad_command_lines.txt)

# Exercises (CPU checks): each slot fails as a stub (or passes once written); each solution passes,
# on the CPU (--cpu-only, which takes no --check-only: it never times).
foreach(exercise ex1 ex2)
  add_test(NAME step5_llama_compare_${exercise}_slot COMMAND bash ${CMAKE_SOURCE_DIR}/tests/exercise_slot.sh
           $<TARGET_FILE:step5_llama_compare> ${exercise} --cpu-only)
  add_test(NAME step5_llama_compare_${exercise}_solution COMMAND step5_llama_compare --cpu-only --kernel ${exercise}_solution)
  set_tests_properties(step5_llama_compare_${exercise}_slot step5_llama_compare_${exercise}_solution PROPERTIES LABELS cpu TIMEOUT 300)
endforeach()
if(NOT QGF_WITH_GGML)  # --seed seeds only the live comparison, which such a build leaves out
  add_exit_code_test(step5_cli_seed_without_live 2 step5_llama_compare --cpu-only --seed 3)
endif()

# The live comparison with the reader's own ggml (-DGGML_DIR, top-level CMakeLists.txt): fresh
# data through ggml's library and ours, byte for byte, on the CPU.
if(QGF_WITH_GGML)
  add_test(NAME step5_live_ggml_cpu COMMAND step5_llama_compare --cpu-only --live-only)
  set_tests_properties(step5_live_ggml_cpu PROPERTIES LABELS cpu TIMEOUT 300)
else()
  add_exit_code_test(step5_cli_live_needs_ggml 2 step5_llama_compare --live-only)
endif()
