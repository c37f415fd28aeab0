/*
 * A starting point for GUI authors: analyse a position with two threads, print the live info
 * lines, then the best move. Build and run (see the README):
 *
 *   cargo build --release
 *   cc -std=c11 -Iinclude examples/analysis.c target/release/liblazuli.a \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o analysis && ./analysis
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
    printf("depth %2u  %s %5d%s  nodes %10llu  nps %8llu  pv %s\n", info->depth,
           info->score_kind == LAZULI_SCORE_KIND_MATE ? "mate" : "cp  ", info->score, bound,
           (unsigned long long)info->nodes, (unsigned long long)info->nps, info->pv);
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

int main(void) {
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

    lazuli_limits limits = lazuli_limits_default();
    limits.depth = 14;
    r = lazuli_engine_go(engine, &limits, on_info, on_bestmove, NULL);
    if (r != LAZULI_RESULT_OK) {
        return fail(engine, r);
    }
    /* lazuli_engine_go returned at once; a GUI keeps running here and may call
     * lazuli_engine_stop at any time. This program just waits for the result. */
    char best[16];
    r = lazuli_engine_wait(engine, best, sizeof best);
    if (r != LAZULI_RESULT_OK) {
        return fail(engine, r);
    }
    lazuli_engine_free(engine);
    return 0;
}
