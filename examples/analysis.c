/*
 * A starting point for GUI authors: analyse a position with two threads, print the live info
 * lines (with the win/draw/loss chances a GUI can show as a bar), then the best move. Given a
 * folder of Syzygy tables, it also analyses a rook ending with them: the score is a proven
 * win, with tablebase hits. Build and run (see the README):
 *
 *   cargo build --release
 *   cc -std=c11 -Iinclude examples/analysis.c target/release/liblazuli.a \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o analysis
 *   ./analysis [SYZYGY_FOLDER]
 */
#include <stdio.h>

#include "lazuli.h"

/* Called on an engine thread for every completed iteration. A GUI would post the data to its
 * own UI thread here; the strings are only valid during the call. */
static void on_info(void *userdata, const lazuli_info *info) {
    (void)userdata;
    const char *bound = info->bound == LAZULI_BOUND_LOWER   ? " lowerbound"
                        : info->bound == LAZULI_BOUND_UPPER ? " upperbound"
                                                            : "";
    printf("depth %2u  %s %5d%s  wdl %4u %4u %4u  nodes %10llu  tbhits %6llu  pv %s\n",
           info->depth, info->score_kind == LAZULI_SCORE_KIND_MATE ? "mate" : "cp  ", info->score,
           bound, info->wdl_win, info->wdl_draw, info->wdl_loss, (unsigned long long)info->nodes,
           (unsigned long long)info->tbhits, info->pv);
}

static void on_bestmove(void *userdata, const char *bestmove, const char *ponder) {
    (void)userdata;
    printf("bestmove %s%s%s\n", bestmove, ponder ? " ponder " : "", ponder ? ponder : "");
}

static int fail(lazuli_engine *engine, lazuli_result r) {
    char message[256];
    lazuli_engine_last_error(engine, message, sizeof message);
    fprintf(stderr, "lazuli error %d: %s\n", (int)r, message);
    lazuli_engine_free(engine);
    return 1;
}

/* Searches the engine's position to `depth` and waits for the best move. */
static lazuli_result analyse(lazuli_engine *engine, int depth) {
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = depth;
    lazuli_result r = lazuli_engine_go(engine, &limits, on_info, on_bestmove, NULL);
    if (r != LAZULI_RESULT_OK) {
        return r;
    }
    /* lazuli_engine_go returned at once; a GUI keeps running here and may call
     * lazuli_engine_stop at any time. This program just waits for the result. */
    char best[16];
    return lazuli_engine_wait(engine, best, sizeof best);
}

int main(int argc, char **argv) {
    lazuli_engine *engine = NULL;
    lazuli_result r = lazuli_engine_new(&engine);
    if (r != LAZULI_RESULT_OK) {
        fprintf(stderr, "cannot create the engine (%d)\n", (int)r);
        return 1;
    }
    printf("lazuli %s\n", lazuli_version());

    if ((r = lazuli_engine_set_option(engine, "Threads", "2")) != LAZULI_RESULT_OK ||
        (r = lazuli_engine_set_option(engine, "Hash", "64")) != LAZULI_RESULT_OK) {
        return fail(engine, r);
    }
    /* The Italian game after 1. e4 e5 2. Nf3 Nc6 3. Bc4. */
    r = lazuli_engine_set_position(engine, NULL, "e2e4 e7e5 g1f3 b8c6 f1c4");
    if (r != LAZULI_RESULT_OK) {
        return fail(engine, r);
    }
    if ((r = analyse(engine, 14)) != LAZULI_RESULT_OK) {
        return fail(engine, r);
    }

    if (argc > 1) {
        /* Endgame tablebases: a folder that does not exist is an error with a message. */
        printf("Syzygy tables from %s\n", argv[1]);
        if ((r = lazuli_engine_set_option(engine, "SyzygyPath", argv[1])) != LAZULI_RESULT_OK ||
            (r = lazuli_engine_set_position(engine, "8/8/8/4k3/8/8/8/KR6 w - - 0 1", NULL)) !=
                LAZULI_RESULT_OK ||
            (r = analyse(engine, 8)) != LAZULI_RESULT_OK) {
            return fail(engine, r);
        }
    }
    lazuli_engine_free(engine);
    return 0;
}
