// The C++ layer, include/lazuli.hpp, against the installed library (tests/install.rs builds
// this with g++ -std=c++17 -Wall -Wextra -Werror through pkg-config and through CMake): the
// engine's lifetime, handlers as std::function, failures as exceptions. Prints
// "lazuli.hpp checks passed" at the end; any failed check exits with status 1.

#include "lazuli.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

// Runs `call`, which must throw lazuli::error with `code` and a message.
template <typename F> static void expect_error(F call, lazuli_result code) {
    try {
        call();
    } catch (const lazuli::error &e) {
        CHECK(e.code() == code);
        CHECK(std::strlen(e.what()) > 0);
        return;
    }
    CHECK(!"no lazuli::error thrown");
}

int main() {
    CHECK(lazuli::version() == lazuli_version());
    bool threads = false;
    for (const lazuli_option &option : lazuli::options()) {
        threads = threads || std::string(option.name) == "Threads";
    }
    CHECK(threads);

    lazuli::engine engine;
    engine.set_option("Threads", "2");
    expect_error([&] { engine.set_option("Threads", "0"); }, LAZULI_RESULT_INVALID_OPTION);
    expect_error([&] { engine.set_position("not a fen"); }, LAZULI_RESULT_INVALID_FEN);
    expect_error([&] { engine.set_position({}, "e2e5"); }, LAZULI_RESULT_ILLEGAL_MOVE);
    CHECK(engine.perft(3) == 8902);

    // A search with both handlers: info lines arrive, and the handler's move is wait()'s.
    engine.set_position({}, "e2e4 e7e5");
    CHECK(engine.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    std::atomic<int> infos{0};
    std::string handed;
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 6;
    engine.go(
        limits, [&](const lazuli_info &info) { infos += info.depth > 0 && info.pv != nullptr; },
        [&](const std::string &best, const std::string &) { handed = best; });
    std::string best = engine.wait();
    CHECK(infos > 0);
    CHECK(best.size() >= 4 && best == handed);

    // go during a search: LAZULI_RESULT_BUSY; stop ends it with a move.
    engine.go_infinite();
    CHECK(engine.is_searching());
    expect_error([&] { engine.go(limits); }, LAZULI_RESULT_BUSY);
    engine.stop();
    CHECK(engine.wait().size() >= 4);

    // A handler that throws: the search stops and wait() rethrows the exception.
    limits.depth = 60;
    engine.go(limits, [](const lazuli_info &) { throw std::runtime_error("planted"); });
    bool rethrown = false;
    try {
        engine.wait();
    } catch (const std::runtime_error &e) {
        rethrown = std::string(e.what()) == "planted";
    }
    CHECK(rethrown);
    CHECK(!engine.is_searching());

    // Moving keeps the one engine; the moved-to owner frees it.
    lazuli::engine moved = std::move(engine);
    CHECK(moved.fen().rfind("rnbqkbnr/pppp1ppp/", 0) == 0);
    CHECK(moved.evaluate() > -1000);

    std::printf("lazuli.hpp checks passed %s\n", lazuli::version().c_str());
    return 0;
}
