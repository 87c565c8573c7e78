// unit_test.h - the few lines the host-only unit tests share: EXPECT counts, and a closing
// "N passed, M failed" line that CI reads.
#pragma once

#include <cstdio>

inline int& unit_tests_passed() { static int n = 0; return n; }
inline int& unit_tests_failed() { static int n = 0; return n; }

#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (cond) {                                                                  \
            ++unit_tests_passed();                                                   \
        } else {                                                                     \
            ++unit_tests_failed();                                                   \
            std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
        }                                                                            \
    } while (0)

// Prints the summary and returns the process exit code.
inline int unit_test_summary() {
    std::printf("%d passed, %d failed\n", unit_tests_passed(), unit_tests_failed());
    return unit_tests_failed() == 0 ? 0 : 1;
}
