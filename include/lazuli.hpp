/*
 * lazuli for C++17: a header-only layer over the C API of lazuli.h, nothing more (it adds no
 * symbol to link).
 *
 * - lazuli::engine owns a lazuli_engine (RAII: the destructor stops and joins its search and
 *   frees it); it can be moved, not copied.
 * - A function that fails throws lazuli::error, carrying the lazuli_result and the engine's
 *   message (lazuli_engine_last_error).
 * - The callbacks are std::function objects. They run on an engine thread, as in C. One that
 *   throws does not unwind into the library: the exception is caught, the search is told to
 *   stop, and the next engine::wait() rethrows it.
 *
 * Threads: stop() and ponderhit() may be called from any thread and from a callback while
 * another thread waits in wait(); the other members are called from one thread at a time.
 *
 *   lazuli::engine engine;
 *   engine.set_option("Threads", "2");
 *   engine.set_position({}, "e2e4 e7e5");
 *   lazuli_limits limits = lazuli_limits_default();
 *   limits.depth = 12;
 *   engine.go(limits, [](const lazuli_info &info) { std::cout << info.pv << '\n'; });
 *   std::string best = engine.wait();
 */

#ifndef LAZULI_HPP
#define LAZULI_HPP

#include "lazuli.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lazuli {

/** A failure of the library: its result code and message. */
class error : public std::runtime_error {
  public:
    error(lazuli_result code, const std::string &message)
        : std::runtime_error(message), code_(code) {}
    /** The lazuli_result of the failed call. */
    lazuli_result code() const noexcept { return code_; }

  private:
    lazuli_result code_;
};

/** Receives each progress report; `info.pv` is valid only during the call. */
using info_handler = std::function<void(const lazuli_info &info)>;
/** Receives the best move and the expected reply ("" when there is none). */
using bestmove_handler = std::function<void(const std::string &bestmove, const std::string &ponder)>;

/** The library's version ("0.1.0"). */
inline std::string version() { return lazuli_version(); }

/** Every option the engines understand, in order, for a settings dialog. */
inline std::vector<lazuli_option> options() {
    std::vector<lazuli_option> all(lazuli_option_count());
    for (std::size_t i = 0; i < all.size(); ++i) {
        lazuli_option_get(i, &all[i]);
    }
    return all;
}

/** An engine: its own hash table, threads and position (lazuli_engine). */
class engine {
  public:
    /** Creates an engine; throws lazuli::error when it cannot be allocated. */
    engine() {
        lazuli_result r = lazuli_engine_new(&raw_);
        if (r != LAZULI_RESULT_OK) {
            throw error(r, "lazuli_engine_new failed");
        }
    }
    /** Stops and joins a running search, then frees the engine. */
    ~engine() { lazuli_engine_free(raw_); }

    engine(const engine &) = delete;
    engine &operator=(const engine &) = delete;
    engine(engine &&other) noexcept
        : raw_(std::exchange(other.raw_, nullptr)), search_(std::move(other.search_)) {}
    engine &operator=(engine &&other) noexcept {
        if (this != &other) {
            lazuli_engine_free(raw_);
            raw_ = std::exchange(other.raw_, nullptr);
            search_ = std::move(other.search_);
        }
        return *this;
    }

    /** Sets a UCI option by name (any case) and text value. */
    void set_option(const std::string &name, const std::string &value) {
        check(lazuli_engine_set_option(raw_, name.c_str(), value.c_str()));
    }
    /** Presses a button option ("Clear Hash"). */
    void press(const std::string &name) {
        check(lazuli_engine_set_option(raw_, name.c_str(), nullptr));
    }
    /** Clears the table (unless "Never Clear Hash") and the histories. */
    void new_game() { check(lazuli_engine_new_game(raw_)); }
    /** Sets the position: `fen` empty for the start position, then `moves` ("e2e4 e7e5"). */
    void set_position(const std::string &fen = {}, const std::string &moves = {}) {
        check(lazuli_engine_set_position(raw_, fen.empty() ? nullptr : fen.c_str(),
                                         moves.empty() ? nullptr : moves.c_str()));
    }
    /** Saves the table to `path` (empty: the "Hash File" option's). */
    void save_hash(const std::string &path = {}) {
        check(lazuli_engine_save_hash(raw_, path.empty() ? nullptr : path.c_str()));
    }
    /** Loads the table from `path` (empty: the "Hash File" option's). */
    void load_hash(const std::string &path = {}) {
        check(lazuli_engine_load_hash(raw_, path.empty() ? nullptr : path.c_str()));
    }

    /**
     * Starts a search and returns at once; the handlers (either may be empty) run on an engine
     * thread. Throws lazuli::error with LAZULI_RESULT_BUSY while a search runs.
     */
    void go(const lazuli_limits &limits, info_handler on_info = {},
            bestmove_handler on_bestmove = {}) {
        // The previous search's handlers are replaced only once go succeeded: the library
        // then has finished that search, its best-move callback included.
        auto search = std::make_unique<handlers>();
        search->raw = raw_;
        search->info = std::move(on_info);
        search->bestmove = std::move(on_bestmove);
        check(lazuli_engine_go(raw_, &limits, &engine::info_trampoline,
                               &engine::bestmove_trampoline, search.get()));
        search_ = std::move(search);
    }
    /** Searches until stop(). */
    void go_infinite(info_handler on_info = {}, bestmove_handler on_bestmove = {}) {
        lazuli_limits limits = lazuli_limits_default();
        limits.infinite = true;
        go(limits, std::move(on_info), std::move(on_bestmove));
    }
    /** Tells the search to stop; returns at once. */
    void stop() { check(lazuli_engine_stop(raw_)); }
    /** The expected move was played: a ponder search goes on under its limits. */
    void ponderhit() { check(lazuli_engine_ponderhit(raw_)); }
    /**
     * Waits for the search to end and its best-move handler to return, and gives the best
     * move ("" before the first search). Rethrows an exception a handler threw.
     */
    std::string wait() {
        char best[16] = {0};
        check(lazuli_engine_wait(raw_, best, sizeof best));
        if (search_ && search_->failure) {
            std::exception_ptr failure = std::exchange(search_->failure, nullptr);
            std::rethrow_exception(failure);
        }
        return best;
    }
    bool is_searching() const { return lazuli_engine_is_searching(raw_); }

    /** Leaf nodes `depth` plies below the position. */
    std::uint64_t perft(std::uint32_t depth) {
        std::uint64_t nodes = 0;
        check(lazuli_engine_perft(raw_, depth, &nodes));
        return nodes;
    }
    /** The static evaluation, centipawns from the side to move. */
    std::int32_t evaluate() {
        std::int32_t cp = 0;
        check(lazuli_engine_evaluate(raw_, &cp));
        return cp;
    }
    /** The position's FEN. */
    std::string fen() const {
        std::string text(lazuli_engine_fen(raw_, nullptr, 0) + 1, '\0');
        text.resize(lazuli_engine_fen(raw_, &text[0], text.size()));
        return text;
    }

    /** The C handle, for the functions this class does not wrap; still owned by *this. */
    lazuli_engine *get() const noexcept { return raw_; }

  private:
    struct handlers {
        lazuli_engine *raw = nullptr;
        info_handler info;
        bestmove_handler bestmove;
        std::exception_ptr failure;
    };

    /** Throws for a failed call, with the engine's message. */
    void check(lazuli_result r) const {
        if (r == LAZULI_RESULT_OK) {
            return;
        }
        std::string message(lazuli_engine_last_error(raw_, nullptr, 0) + 1, '\0');
        message.resize(lazuli_engine_last_error(raw_, &message[0], message.size()));
        throw error(r, message);
    }

    // The callbacks the library calls: no exception leaves them.
    static void info_trampoline(void *userdata, const lazuli_info *info) {
        auto *search = static_cast<handlers *>(userdata);
        if (!search->info || search->failure) {
            return;
        }
        try {
            search->info(*info);
        } catch (...) {
            search->failure = std::current_exception();
            lazuli_engine_stop(search->raw);
        }
    }
    static void bestmove_trampoline(void *userdata, const char *bestmove, const char *ponder) {
        auto *search = static_cast<handlers *>(userdata);
        if (!search->bestmove || search->failure) {
            return;
        }
        try {
            search->bestmove(bestmove, ponder ? ponder : "");
        } catch (...) {
            search->failure = std::current_exception();
        }
    }

    lazuli_engine *raw_ = nullptr;
    std::unique_ptr<handlers> search_;
};

}  // namespace lazuli

#endif  // LAZULI_HPP
