/*
 * Tests of liblazuli through its C header, built with
 *   gcc -std=c11 -Wall -Wextra -Werror -pedantic
 * and linked once against liblazuli.a and once against liblazuli.so (tests/c_api.rs does both
 * and runs them). Exit status 0 means every check passed; each failure prints its line.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lazuli.h"

/* The 3- and 4-piece Syzygy tables (the tests run from the repository's root). */
#ifndef SYZYGY_DIR
#define SYZYGY_DIR "tests/data/syzygy"
#endif

static int failures = 0;
/* LAZULI_TIMING set: also check the wall-clock bounds (for an idle machine; the default run
 * checks behaviour only, see tests/c_api.rs). */
static int timing = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define CHECK_RESULT(call, expected) CHECK((call) == (expected))

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* What the callbacks saw. */
typedef struct {
    pthread_mutex_t lock;
    int infos;
    int bestmoves;
    int last_depth;
    int mate_seen;
    int last_kind;
    int last_score;
    uint64_t last_tbhits;
    unsigned wdl[3];
    int wdl_bad; /* info reports whose chances do not add up to 1000 */
    char bestmove[16];
    char ponder[16];
    char last_pv[512];
} record;

static void record_init(record *r) {
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
}

static void on_info(void *userdata, const lazuli_info *info) {
    record *r = userdata;
    pthread_mutex_lock(&r->lock);
    r->infos++;
    r->last_depth = (int)info->depth;
    if (info->score_kind == LAZULI_SCORE_KIND_MATE) {
        r->mate_seen = info->score;
    }
    r->last_kind = (int)info->score_kind;
    r->last_score = info->score;
    r->last_tbhits = info->tbhits;
    r->wdl[0] = info->wdl_win;
    r->wdl[1] = info->wdl_draw;
    r->wdl[2] = info->wdl_loss;
    if (info->wdl_win + info->wdl_draw + info->wdl_loss != 1000) {
        r->wdl_bad++;
    }
    if (info->pv != NULL) {
        snprintf(r->last_pv, sizeof r->last_pv, "%s", info->pv);
    }
    pthread_mutex_unlock(&r->lock);
}

static void on_bestmove(void *userdata, const char *bestmove, const char *ponder) {
    record *r = userdata;
    pthread_mutex_lock(&r->lock);
    r->bestmoves++;
    snprintf(r->bestmove, sizeof r->bestmove, "%s", bestmove);
    snprintf(r->ponder, sizeof r->ponder, "%s", ponder ? ponder : "");
    pthread_mutex_unlock(&r->lock);
}

static lazuli_engine *new_engine(void) {
    lazuli_engine *e = NULL;
    CHECK_RESULT(lazuli_engine_new(&e), LAZULI_RESULT_OK);
    CHECK(e != NULL);
    return e;
}

/* True if `move` is a legal move of the engine's position: setting the position with it works. */
static int is_legal(lazuli_engine *e, const char *move) {
    char fen[128];
    lazuli_engine_fen(e, fen, sizeof fen);
    lazuli_engine *probe = new_engine();
    int ok = lazuli_engine_set_position(probe, fen, move) == LAZULI_RESULT_OK;
    lazuli_engine_free(probe);
    return ok;
}

static void test_version(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", LAZULI_VERSION_MAJOR, LAZULI_VERSION_MINOR,
             LAZULI_VERSION_PATCH);
    CHECK(strcmp(lazuli_version(), expected) == 0);
}

static void test_search_with_callbacks(void) {
    lazuli_engine *e = new_engine();
    record r;
    record_init(&r);
    CHECK_RESULT(lazuli_engine_set_position(e, NULL, "e2e4 e7e5 g1f3"), LAZULI_RESULT_OK);
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 8;
    CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
    char best[16];
    CHECK_RESULT(lazuli_engine_wait(e, best, sizeof best), LAZULI_RESULT_OK);
    CHECK(r.bestmoves == 1);
    CHECK(r.infos >= 8);
    CHECK(r.last_depth == 8);
    CHECK(strcmp(best, r.bestmove) == 0);
    CHECK(strncmp(r.last_pv, best, strlen(best)) == 0);
    CHECK(is_legal(e, best));
    CHECK(r.ponder[0] != '\0');
    CHECK(r.wdl_bad == 0);
    CHECK(r.wdl[1] > 0); /* an even opening is no certain result */
    /* Waiting again returns at once with the same move. */
    char again[16];
    CHECK_RESULT(lazuli_engine_wait(e, again, sizeof again), LAZULI_RESULT_OK);
    CHECK(strcmp(again, best) == 0);
    lazuli_engine_free(e);
}

/* Limited strength as over UCI: UCI_Elo 1320 (1319 refused), seeded, plays a legal move, the same
   twice, its node budget ending the search shallower than full strength's 20000 nodes (a node
   limit: with a clock the move depends on the machine's load, which failed a busy CI run). */
static void test_limited_strength(void) {
    char moves[3][16];
    int depths[3];
    for (int i = 0; i < 3; i++) {
        lazuli_engine *e = new_engine();
        CHECK_RESULT(lazuli_engine_set_option(e, "UCI_LimitStrength", i < 2 ? "true" : "false"),
                     LAZULI_RESULT_OK);
        CHECK_RESULT(lazuli_engine_set_option(e, "UCI_Elo", "1319"), LAZULI_RESULT_INVALID_OPTION);
        CHECK_RESULT(lazuli_engine_set_option(e, "UCI_Elo", "1320"), LAZULI_RESULT_OK);
        CHECK_RESULT(lazuli_engine_set_option(e, "Skill Seed", "42"), LAZULI_RESULT_OK);
        CHECK_RESULT(lazuli_engine_set_option(e, "Skill Level", "21"), LAZULI_RESULT_INVALID_OPTION);
        CHECK_RESULT(lazuli_engine_set_position(e, NULL, "e2e4 e7e5 g1f3"), LAZULI_RESULT_OK);
        lazuli_limits limits = lazuli_limits_default();
        limits.nodes = 20000;
        record r;
        record_init(&r);
        CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
        CHECK_RESULT(lazuli_engine_wait(e, moves[i], sizeof moves[i]), LAZULI_RESULT_OK);
        CHECK(is_legal(e, moves[i]));
        depths[i] = r.last_depth;
        lazuli_engine_free(e);
    }
    CHECK(strcmp(moves[0], moves[1]) == 0);
    CHECK(depths[0] == depths[1] && depths[0] < depths[2]);
}

static void test_mate_and_no_move(void) {
    lazuli_engine *e = new_engine();
    record r;
    record_init(&r);
    /* Mate in 2. */
    CHECK_RESULT(lazuli_engine_set_position(e, "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - 0 1", NULL),
                 LAZULI_RESULT_OK);
    lazuli_limits limits = lazuli_limits_default();
    limits.mate = 2;
    CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(e, NULL, 0), LAZULI_RESULT_OK);
    CHECK(r.mate_seen == 2);
    CHECK(strcmp(r.bestmove, "h5a5") == 0);
    CHECK(r.wdl[0] == 1000 && r.wdl_bad == 0);
    /* Checkmated: "(none)". */
    record_init(&r);
    CHECK_RESULT(lazuli_engine_set_position(e, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", NULL),
                 LAZULI_RESULT_OK);
    limits = lazuli_limits_default();
    limits.depth = 3;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, on_bestmove, &r), LAZULI_RESULT_OK);
    char best[16];
    CHECK_RESULT(lazuli_engine_wait(e, best, sizeof best), LAZULI_RESULT_OK);
    CHECK(strcmp(best, "(none)") == 0);
    CHECK(strcmp(r.bestmove, "(none)") == 0);
    CHECK(r.ponder[0] == '\0');
    lazuli_engine_free(e);
}

static void test_stop_during_infinite(void) {
    lazuli_engine *e = new_engine();
    CHECK_RESULT(lazuli_engine_set_option(e, "Threads", "2"), LAZULI_RESULT_OK);
    record r;
    record_init(&r);
    lazuli_limits limits = lazuli_limits_default();
    limits.infinite = true;
    CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
    sleep_ms(300);
    CHECK(lazuli_engine_is_searching(e));
    pthread_mutex_lock(&r.lock);
    CHECK(r.bestmoves == 0); /* never early under infinite */
    pthread_mutex_unlock(&r.lock);
    double t0 = now_ms();
    CHECK_RESULT(lazuli_engine_stop(e), LAZULI_RESULT_OK);
    char best[16];
    CHECK_RESULT(lazuli_engine_wait(e, best, sizeof best), LAZULI_RESULT_OK);
    CHECK(!timing || now_ms() - t0 < 100.0);
    CHECK(!lazuli_engine_is_searching(e));
    CHECK(r.bestmoves == 1);
    CHECK(is_legal(e, best));
    /* Stop when nothing runs is harmless. */
    CHECK_RESULT(lazuli_engine_stop(e), LAZULI_RESULT_OK);
    lazuli_engine_free(e);
}

/* A ponder search waits for ponderhit, then keeps the clock counted from it; or ends on stop. */
static void test_ponder(void) {
    lazuli_engine *e = new_engine();
    for (int hit = 0; hit < 2; hit++) {
        record r;
        record_init(&r);
        lazuli_limits limits = lazuli_limits_default();
        limits.wtime_ms = limits.btime_ms = 300;
        limits.ponder = true;
        CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
        sleep_ms(400); /* longer than the clock: pondering is free */
        CHECK(lazuli_engine_is_searching(e));
        pthread_mutex_lock(&r.lock);
        CHECK(r.bestmoves == 0);
        pthread_mutex_unlock(&r.lock);
        double t0 = now_ms();
        CHECK_RESULT(hit ? lazuli_engine_ponderhit(e) : lazuli_engine_stop(e), LAZULI_RESULT_OK);
        char best[16];
        CHECK_RESULT(lazuli_engine_wait(e, best, sizeof best), LAZULI_RESULT_OK);
        CHECK(!timing || now_ms() - t0 < 300.0);
        CHECK(r.bestmoves == 1);
        CHECK(is_legal(e, best));
    }
    lazuli_engine_free(e);
}

typedef struct {
    lazuli_engine *engine;
    char best[16];
    lazuli_result result;
} waiter;

static void *wait_thread(void *arg) {
    waiter *w = arg;
    w->result = lazuli_engine_wait(w->engine, w->best, sizeof w->best);
    return NULL;
}

/* One thread blocks in wait; another stops the search. */
static void test_stop_from_another_thread(void) {
    lazuli_engine *e = new_engine();
    lazuli_limits limits = lazuli_limits_default();
    limits.infinite = true;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    waiter w = {e, {0}, LAZULI_RESULT_INTERNAL_PANIC};
    pthread_t t;
    pthread_create(&t, NULL, wait_thread, &w);
    sleep_ms(100);
    CHECK_RESULT(lazuli_engine_stop(e), LAZULI_RESULT_OK);
    pthread_join(t, NULL);
    CHECK(w.result == LAZULI_RESULT_OK);
    CHECK(is_legal(e, w.best));
    lazuli_engine_free(e);
}

static void test_go_while_busy(void) {
    lazuli_engine *e = new_engine();
    lazuli_limits limits = lazuli_limits_default();
    limits.infinite = true;
    record r;
    record_init(&r);
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, on_bestmove, &r), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, on_bestmove, &r), LAZULI_RESULT_BUSY);
    char message[256];
    size_t n = lazuli_engine_last_error(e, message, sizeof message);
    CHECK(n > 0 && strstr(message, "search") != NULL);
    /* Options are accepted during the search and applied after it. */
    CHECK_RESULT(lazuli_engine_set_option(e, "Hash", "32"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_stop(e), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(e, NULL, 0), LAZULI_RESULT_OK);
    CHECK(r.bestmoves == 1);
    /* Stopped: go works again, even right after stop without waiting. */
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_stop(e), LAZULI_RESULT_OK);
    limits.infinite = false;
    limits.depth = 3;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(e, NULL, 0), LAZULI_RESULT_OK);
    lazuli_engine_free(e);
}

static void test_free_while_searching(void) {
    for (int i = 0; i < 3; i++) {
        lazuli_engine *e = new_engine();
        CHECK_RESULT(lazuli_engine_set_option(e, "Threads", "3"), LAZULI_RESULT_OK);
        lazuli_limits limits = lazuli_limits_default();
        limits.infinite = true;
        record r;
        record_init(&r);
        CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &r), LAZULI_RESULT_OK);
        sleep_ms(20 * i);
        lazuli_engine_free(e); /* stops and joins; the best-move callback still runs once */
        CHECK(r.bestmoves == 1);
    }
    lazuli_engine_free(NULL);
}

static void test_bad_input(void) {
    lazuli_engine *e = new_engine();
    const char *start_moves = "d2d4 g8f6";
    CHECK_RESULT(lazuli_engine_set_position(e, NULL, start_moves), LAZULI_RESULT_OK);
    char fen_before[128], fen_after[128], message[256];
    lazuli_engine_fen(e, fen_before, sizeof fen_before);
    const char bad_utf8[] = {'e', '2', (char)0xff, 'e', '4', 0};
    struct {
        lazuli_result got, expected;
        int line;
    } cases[] = {
        {lazuli_engine_new(NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_set_option(NULL, "Hash", "1"), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_set_option(e, NULL, "1"), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_set_option(e, bad_utf8, "1"), LAZULI_RESULT_INVALID_UTF8, __LINE__},
        {lazuli_engine_set_option(e, "Hash", bad_utf8), LAZULI_RESULT_INVALID_UTF8, __LINE__},
        {lazuli_engine_set_option(e, "No Such Option", "1"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_option(e, "Hash", "0"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_option(e, "Hash", "lots"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_option(e, "Threads", "100000"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_option(e, "NullMove", "sometimes"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_option(e, "Ponder", "maybe"), LAZULI_RESULT_INVALID_OPTION, __LINE__},
        {lazuli_engine_set_position(NULL, NULL, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_set_position(e, "not a fen", NULL), LAZULI_RESULT_INVALID_FEN, __LINE__},
        {lazuli_engine_set_position(e, "8/8/8/8/8/8/8/8 w - - 0 1", NULL), LAZULI_RESULT_INVALID_FEN, __LINE__},
        {lazuli_engine_set_position(e, bad_utf8, NULL), LAZULI_RESULT_INVALID_UTF8, __LINE__},
        {lazuli_engine_set_position(e, NULL, "e2e5"), LAZULI_RESULT_ILLEGAL_MOVE, __LINE__},
        {lazuli_engine_set_position(e, NULL, "e2e4 e2e4"), LAZULI_RESULT_ILLEGAL_MOVE, __LINE__},
        {lazuli_engine_set_position(e, NULL, "castle"), LAZULI_RESULT_ILLEGAL_MOVE, __LINE__},
        {lazuli_engine_set_position(e, NULL, bad_utf8), LAZULI_RESULT_INVALID_UTF8, __LINE__},
        {lazuli_engine_go(NULL, NULL, NULL, NULL, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_stop(NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_wait(NULL, NULL, 0), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_new_game(NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_perft(e, 1, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_perft(NULL, 1, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_evaluate(e, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_engine_ponderhit(NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
        {lazuli_option_get(1000, NULL), LAZULI_RESULT_NULL_ARGUMENT, __LINE__},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].got != cases[i].expected) {
            fprintf(stderr, "bad input case at line %d: got %d, expected %d\n", cases[i].line,
                    (int)cases[i].got, (int)cases[i].expected);
            failures++;
        }
    }
    /* Nothing changed, and the last failure is explained in our own buffer. */
    lazuli_engine_fen(e, fen_after, sizeof fen_after);
    CHECK(strcmp(fen_before, fen_after) == 0);
    size_t n = lazuli_engine_last_error(e, message, sizeof message);
    CHECK(n == strlen(message) && n > 0);
    CHECK(strstr(message, "evaluate") != NULL || strstr(message, "out_cp") != NULL);
    /* A short buffer gets a truncated, terminated copy; the full length is returned. */
    char tiny[5];
    CHECK(lazuli_engine_last_error(e, tiny, sizeof tiny) == n && strlen(tiny) == 4);
    CHECK(lazuli_engine_last_error(e, NULL, 0) == n);
    CHECK(lazuli_engine_last_error(NULL, message, sizeof message) == 0);
    CHECK_RESULT(lazuli_engine_set_position(e, NULL, "e2e5"), LAZULI_RESULT_ILLEGAL_MOVE);
    lazuli_engine_last_error(e, message, sizeof message);
    CHECK(strstr(message, "e2e5") != NULL);
    /* Too small a buffer for the best move. */
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 2;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    char two[2];
    CHECK_RESULT(lazuli_engine_wait(e, two, sizeof two), LAZULI_RESULT_BUFFER_TOO_SMALL);
    CHECK(strlen(two) == 1);
    /* A hash table the machine cannot hold: an error, and the old table stays. */
    lazuli_option hash;
    size_t count = lazuli_option_count();
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        CHECK_RESULT(lazuli_option_get(i, &hash), LAZULI_RESULT_OK);
        if (strcmp(hash.name, "Hash") == 0) {
            found = 1;
            break;
        }
    }
    CHECK(found && hash.option_type == LAZULI_OPTION_TYPE_SPIN && hash.default_value == 16);
    char max[32];
    snprintf(max, sizeof max, "%lld", (long long)hash.max);
    CHECK_RESULT(lazuli_engine_set_option(e, "Hash", max), LAZULI_RESULT_OUT_OF_MEMORY);
    lazuli_engine_last_error(e, message, sizeof message);
    CHECK(strstr(message, "memory") != NULL);
    limits.depth = 5;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(e, NULL, 0), LAZULI_RESULT_OK);
    lazuli_engine_free(e);
}

static void test_options_perft_evaluate(void) {
    size_t count = lazuli_option_count();
    CHECK(count >= 9);
    int combos = 0;
    for (size_t i = 0; i < count; i++) {
        lazuli_option o;
        CHECK_RESULT(lazuli_option_get(i, &o), LAZULI_RESULT_OK);
        CHECK(o.name != NULL && o.name[0] != '\0');
        if (o.option_type == LAZULI_OPTION_TYPE_COMBO) {
            combos++;
            CHECK(strcmp(o.name, "NullMove") == 0);
            CHECK(strcmp(o.default_string, "verified") == 0);
            CHECK(strcmp(o.vars, "verified paper standard off") == 0);
        }
    }
    CHECK(combos == 1);
    lazuli_option o;
    CHECK_RESULT(lazuli_option_get(count, &o), LAZULI_RESULT_INVALID_OPTION);

    lazuli_engine *e = new_engine();
    uint64_t nodes = 0;
    CHECK_RESULT(lazuli_engine_set_position(e, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", NULL),
                 LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_perft(e, 3, &nodes), LAZULI_RESULT_OK);
    CHECK(nodes == 97862);
    int32_t cp = 0, cp_black = 0;
    CHECK_RESULT(lazuli_engine_set_position(e, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_evaluate(e, &cp), LAZULI_RESULT_OK);
    CHECK(cp > 0 && cp < 100); /* White's first-move edge, under a pawn (+53, s8910b8-h64m) */
    CHECK_RESULT(lazuli_engine_set_position(e, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", NULL),
                 LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_evaluate(e, &cp_black), LAZULI_RESULT_OK);
    CHECK(cp_black < -700);
    /* Chess960 castling notation. */
    CHECK_RESULT(lazuli_engine_set_option(e, "UCI_Chess960", "true"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_position(e, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1"), LAZULI_RESULT_OK);
    char fen[128];
    CHECK(lazuli_engine_fen(e, fen, sizeof fen) == strlen(fen));
    CHECK(strcmp(fen, "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1") == 0);
    CHECK_RESULT(lazuli_engine_new_game(e), LAZULI_RESULT_OK);
    lazuli_engine_free(e);
}

/* Syzygy tables: a bad folder is an error code with a message and keeps the engine usable; a
 * known win is reported as one (with tablebase hits and certain chances); a second engine in
 * the same process, without tables, knows nothing of them. */
static void test_tablebases(void) {
    lazuli_engine *e = new_engine();
    lazuli_engine *plain = new_engine();
    char message[256];
    CHECK_RESULT(lazuli_engine_set_option(e, "SyzygyPath", "/no/such/folder"), LAZULI_RESULT_INVALID_OPTION);
    CHECK(lazuli_engine_last_error(e, message, sizeof message) > 0);
    CHECK(strstr(message, "/no/such/folder") != NULL);
    CHECK_RESULT(lazuli_engine_set_option(e, "SyzygyProbeLimit", "8"), LAZULI_RESULT_INVALID_OPTION);
    CHECK_RESULT(lazuli_engine_set_option(e, "Syzygy50MoveRule", "maybe"), LAZULI_RESULT_INVALID_OPTION);
    CHECK_RESULT(lazuli_engine_set_option(e, "SyzygyPath", SYZYGY_DIR), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_option(e, "SyzygyProbeDepth", "2"), LAZULI_RESULT_OK);

    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 5;
    record with, without;
    record_init(&with);
    record_init(&without);
    CHECK_RESULT(lazuli_engine_set_position(e, "8/8/8/4k3/8/8/8/KR6 w - - 0 1", NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_position(plain, "8/8/8/4k3/8/8/8/KR6 w - - 0 1", NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_go(e, &limits, on_info, on_bestmove, &with), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_go(plain, &limits, on_info, on_bestmove, &without), LAZULI_RESULT_OK);
    char best[16];
    CHECK_RESULT(lazuli_engine_wait(e, best, sizeof best), LAZULI_RESULT_OK);
    CHECK(is_legal(e, best));
    CHECK_RESULT(lazuli_engine_wait(plain, NULL, 0), LAZULI_RESULT_OK);
    CHECK(with.last_tbhits > 0);
    CHECK(with.last_kind == LAZULI_SCORE_KIND_CP && with.last_score >= 19000);
    CHECK(with.wdl[0] == 1000 && with.wdl_bad == 0);
    CHECK(without.last_tbhits == 0);
    CHECK(without.last_kind == LAZULI_SCORE_KIND_CP && without.last_score < 19000);
    CHECK(without.wdl[0] < 1000 && without.wdl_bad == 0);
    lazuli_engine_free(plain);
    lazuli_engine_free(e);
}

typedef struct {
    lazuli_engine *engine;
    record rec;
} searcher;

/* Four engines searching at the same time, each with its own table and threads. */
static void test_four_engines(void) {
    const char *fens[4] = {
        NULL,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    };
    searcher s[4];
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 9;
    for (int i = 0; i < 4; i++) {
        s[i].engine = new_engine();
        record_init(&s[i].rec);
        CHECK_RESULT(lazuli_engine_set_option(s[i].engine, "Threads", "2"), LAZULI_RESULT_OK);
        CHECK_RESULT(lazuli_engine_set_position(s[i].engine, fens[i], NULL), LAZULI_RESULT_OK);
    }
    for (int i = 0; i < 4; i++) {
        CHECK_RESULT(lazuli_engine_go(s[i].engine, &limits, on_info, on_bestmove, &s[i].rec), LAZULI_RESULT_OK);
    }
    for (int i = 0; i < 4; i++) {
        char best[16];
        CHECK_RESULT(lazuli_engine_wait(s[i].engine, best, sizeof best), LAZULI_RESULT_OK);
        CHECK(s[i].rec.bestmoves == 1);
        CHECK(s[i].rec.last_depth == 9);
        CHECK(is_legal(s[i].engine, best));
    }
    for (int i = 0; i < 4; i++) {
        lazuli_engine_free(s[i].engine);
    }
}

/* The whole of a file, its length in *len (NULL if it cannot be read). */
static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*len + 1);
    if (bytes != NULL && fread(bytes, 1, *len, f) != *len) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    return bytes;
}

/* True if both files hold the same bytes; with `header_count` only, the same count of entries
 * in use (the header's bytes 32 to 39). */
static int same_file(const char *a, const char *b, int header_count) {
    size_t la = 0, lb = 0;
    unsigned char *x = read_file(a, &la), *y = read_file(b, &lb);
    int same = x != NULL && y != NULL && la == lb && la > 40 &&
               (header_count ? memcmp(x + 32, y + 32, 8) == 0 : memcmp(x, y, la) == 0);
    free(x);
    free(y);
    return same;
}

/* The persistent hash: save, load into the same and another size (a load that changed
 * nothing saves the same bytes again), bad files refused with FILE_ERROR and the table kept,
 * BUSY during a search, NULL for the "Hash File" option's path, Never Clear Hash. */
static void test_hash_file(void) {
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char saved[512], again[512], bad[512], message[512];
    snprintf(saved, sizeof saved, "%s/lazuli-c-hash-%ld.lzh", tmp, (long)getpid());
    snprintf(again, sizeof again, "%s/lazuli-c-hash-%ld-again.lzh", tmp, (long)getpid());
    snprintf(bad, sizeof bad, "%s/lazuli-c-hash-%ld-bad.lzh", tmp, (long)getpid());
    lazuli_engine *e = new_engine();
    CHECK_RESULT(lazuli_engine_set_option(e, "Hash", "1"), LAZULI_RESULT_OK);
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 7;
    CHECK_RESULT(lazuli_engine_go(e, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(e, NULL, 0), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(e, saved), LAZULI_RESULT_OK);

    /* The same size, then twice the size and back through the option's path. */
    lazuli_engine *f = new_engine();
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash", "1"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_load_hash(f, saved), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(f, again), LAZULI_RESULT_OK);
    CHECK(same_file(saved, again, 0));
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash", "2"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash File", saved), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_option(f, "Load Hash from File", NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_load_hash(f, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(f, again), LAZULI_RESULT_OK);
    CHECK(!same_file(saved, again, 0));
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash", "1"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_load_hash(f, again), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(f, again), LAZULI_RESULT_OK);
    /* Back to the first size: every entry kept (each bucket gets the keys of one first one). */
    CHECK(same_file(saved, again, 1));
    CHECK_RESULT(lazuli_engine_load_hash(f, saved), LAZULI_RESULT_OK);

    /* Bad files: FILE_ERROR with the reason, the table as it was. */
    size_t len = 0;
    unsigned char *bytes = read_file(saved, &len);
    CHECK(bytes != NULL && len == 64 + 1024 * 1024);
    struct {
        size_t offset, keep;
        const char *reason;
    } cases[] = {
        {len / 2, len, "checksum"},
        {0, len, "not a lazuli hash file"},
        {8, len, "format version"},
        {len, len - 64, "truncated"},
    };
    for (size_t i = 0; bytes != NULL && i < sizeof cases / sizeof cases[0]; i++) {
        FILE *out = fopen(bad, "wb");
        if (cases[i].offset < len) {
            bytes[cases[i].offset] ^= 1;
        }
        fwrite(bytes, 1, cases[i].keep, out);
        fclose(out);
        if (cases[i].offset < len) {
            bytes[cases[i].offset] ^= 1;
        }
        CHECK_RESULT(lazuli_engine_load_hash(f, bad), LAZULI_RESULT_FILE_ERROR);
        lazuli_engine_last_error(f, message, sizeof message);
        CHECK(strstr(message, cases[i].reason) != NULL);
        CHECK(strstr(message, "the table is unchanged") != NULL);
    }
    free(bytes);
    remove(bad);
    CHECK_RESULT(lazuli_engine_load_hash(f, bad), LAZULI_RESULT_FILE_ERROR);
    CHECK_RESULT(lazuli_engine_save_hash(f, "/nonexistent-lazuli/x.lzh"), LAZULI_RESULT_FILE_ERROR);
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash File", ""), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(f, NULL), LAZULI_RESULT_FILE_ERROR);
    CHECK_RESULT(lazuli_engine_set_option(f, "Save Hash to File", NULL), LAZULI_RESULT_FILE_ERROR);
    CHECK_RESULT(lazuli_engine_save_hash(NULL, saved), LAZULI_RESULT_NULL_ARGUMENT);
    CHECK_RESULT(lazuli_engine_save_hash(f, again), LAZULI_RESULT_OK);
    CHECK(same_file(saved, again, 0));

    /* During a search: BUSY, nothing written. */
    remove(again);
    limits = lazuli_limits_default();
    limits.infinite = true;
    CHECK_RESULT(lazuli_engine_go(f, &limits, NULL, NULL, NULL), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(f, again), LAZULI_RESULT_BUSY);
    CHECK_RESULT(lazuli_engine_load_hash(f, saved), LAZULI_RESULT_BUSY);
    CHECK_RESULT(lazuli_engine_set_option(f, "Hash File", again), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_option(f, "Save Hash to File", NULL), LAZULI_RESULT_BUSY);
    CHECK_RESULT(lazuli_engine_stop(f), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_wait(f, NULL, 0), LAZULI_RESULT_OK);
    CHECK(access(again, F_OK) != 0);

    /* Never Clear Hash: new_game keeps the table. */
    CHECK_RESULT(lazuli_engine_load_hash(e, saved), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_set_option(e, "Never Clear Hash", "true"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_new_game(e), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(e, again), LAZULI_RESULT_OK);
    CHECK(same_file(saved, again, 0));
    CHECK_RESULT(lazuli_engine_set_option(e, "Never Clear Hash", "false"), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_new_game(e), LAZULI_RESULT_OK);
    CHECK_RESULT(lazuli_engine_save_hash(e, again), LAZULI_RESULT_OK);
    CHECK(!same_file(saved, again, 0));
    remove(saved);
    remove(again);
    lazuli_engine_free(e);
    lazuli_engine_free(f);
}

int main(void) {
    timing = getenv("LAZULI_TIMING") != NULL;
    test_version();
    test_search_with_callbacks();
    test_limited_strength();
    test_mate_and_no_move();
    test_stop_during_infinite();
    test_ponder();
    test_stop_from_another_thread();
    test_go_while_busy();
    test_free_while_searching();
    test_bad_input();
    test_options_perft_evaluate();
    test_tablebases();
    test_four_engines();
    test_hash_file();
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all C API checks passed\n");
    return 0;
}
