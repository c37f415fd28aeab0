// The header compiles as C++ (g++ -std=c++17 -Wall -Werror) and its functions link with C
// linkage from C++ code.
#include "lazuli.h"

#include <cstdio>

int main() {
    lazuli_engine *engine = nullptr;
    if (lazuli_engine_new(&engine) != LAZULI_RESULT_OK) {
        return 1;
    }
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 4;
    lazuli_result r = lazuli_engine_go(engine, &limits, nullptr, nullptr, nullptr);
    char best[16] = {0};
    if (r == LAZULI_RESULT_OK) {
        r = lazuli_engine_wait(engine, best, sizeof best);
    }
    lazuli_engine_free(engine);
    std::printf("%s %s\n", lazuli_version(), best);
    return r == LAZULI_RESULT_OK ? 0 : 1;
}
