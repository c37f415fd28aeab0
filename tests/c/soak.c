/*
 * Soak of the C library: ENGINES engines, each driven by HOSTS host threads at once through
 * random cycles of go / stop / ponderhit / wait / set_position / set_option / new_game, for
 * a given number of seconds. Resident memory (/proc/self/statm) is sampled every SAMPLE
 * seconds and printed; at the end the run fails if the mean of the last quarter of the samples
 * stands more than 10% (plus 8 MB) above the mean of the first quarter (single samples swing
 * by some 40 MB with the hash tables that exist at that moment), or if any call returned a
 * code its documentation does not allow, or a best move was not legal-looking UCI.
 *
 *   make c-soak SECONDS=3600            # the hour-long run
 *   make c-soak-valgrind SECONDS=120    # the same under valgrind (no error, no leak)
 *
 * Deterministic per seed in what each host thread asks (its own xorshift generator), not in
 * how the threads interleave.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lazuli.h"

#define ENGINES 4
#define HOSTS 3

static atomic_int stop_all;
static atomic_long calls;
static atomic_long searches;
static atomic_long failures;

static const char *FENS[] = {
    NULL,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "not a fen",
};
static const char *MOVES[] = {NULL, "e2e4", "e2e4 e7e5 g1f3", "e2e5", "zz"};
static const char *OPTIONS[][2] = {
    {"Hash", "1"},     {"Hash", "8"},      {"Threads", "1"},       {"Threads", "2"},
    {"MultiPV", "3"},  {"MultiPV", "1"},   {"Clear Hash", NULL},   {"NullMove", "standard"},
    {"NullMove", "verified"}, {"Threads", "0"}, {"Nonsense", "1"}, {"UCI_ShowWDL", "true"},
};

static uint64_t next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void fail(const char *what, int code) {
    fprintf(stderr, "unexpected: %s returned %d\n", what, code);
    atomic_fetch_add(&failures, 1);
}

static void on_info(void *userdata, const lazuli_info *info) {
    (void)userdata;
    (void)info;
}

static void on_bestmove(void *userdata, const char *best, const char *ponder) {
    (void)userdata;
    (void)ponder;
    size_t n = strlen(best);
    if (!(strcmp(best, "(none)") == 0 || n == 4 || n == 5)) {
        fprintf(stderr, "bad bestmove '%s'\n", best);
        atomic_fetch_add(&failures, 1);
    }
    atomic_fetch_add(&searches, 1);
}

typedef struct {
    lazuli_engine *engine;
    uint64_t seed;
} host_args;

static void *host(void *p) {
    host_args *a = p;
    uint64_t s = a->seed;
    while (!atomic_load(&stop_all)) {
        int r;
        atomic_fetch_add(&calls, 1);
        switch (next(&s) % 9) {
        case 0:
        case 1: {
            lazuli_limits l = lazuli_limits_default();
            switch (next(&s) % 4) {
            case 0: l.movetime_ms = 1 + next(&s) % 30; break;
            case 1: l.depth = 1 + next(&s) % 5; break;
            case 2: l.nodes = 1 + next(&s) % 20000; break;
            default: l.wtime_ms = l.btime_ms = 20 + next(&s) % 400; break;
            }
            r = lazuli_engine_go(a->engine, &l, on_info, on_bestmove, NULL);
            if (r != LAZULI_RESULT_OK && r != LAZULI_RESULT_BUSY) fail("go", r);
            break;
        }
        case 2:
            r = lazuli_engine_stop(a->engine);
            if (r != LAZULI_RESULT_OK) fail("stop", r);
            break;
        case 3:
            r = lazuli_engine_ponderhit(a->engine);
            if (r != LAZULI_RESULT_OK) fail("ponderhit", r);
            break;
        case 4: {
            char best[8];
            r = lazuli_engine_wait(a->engine, best, sizeof best);
            if (r != LAZULI_RESULT_OK) fail("wait", r);
            break;
        }
        case 5: {
            const char *fen = FENS[next(&s) % (sizeof FENS / sizeof *FENS)];
            const char *moves = MOVES[next(&s) % (sizeof MOVES / sizeof *MOVES)];
            r = lazuli_engine_set_position(a->engine, fen, moves);
            if (r != LAZULI_RESULT_OK && r != LAZULI_RESULT_INVALID_FEN &&
                r != LAZULI_RESULT_ILLEGAL_MOVE)
                fail("set_position", r);
            break;
        }
        case 6: {
            const char **o = OPTIONS[next(&s) % (sizeof OPTIONS / sizeof *OPTIONS)];
            r = lazuli_engine_set_option(a->engine, o[0], o[1]);
            if (r != LAZULI_RESULT_OK && r != LAZULI_RESULT_INVALID_OPTION) fail("set_option", r);
            break;
        }
        case 7:
            r = lazuli_engine_new_game(a->engine);
            if (r != LAZULI_RESULT_OK) fail("new_game", r);
            break;
        default: {
            /* A ponder search, then ponderhit or stop a moment later. */
            lazuli_limits l = lazuli_limits_default();
            l.wtime_ms = l.btime_ms = 100 + next(&s) % 200;
            l.ponder = true;
            r = lazuli_engine_go(a->engine, &l, on_info, on_bestmove, NULL);
            if (r != LAZULI_RESULT_OK && r != LAZULI_RESULT_BUSY) fail("go ponder", r);
            sleep_ms(next(&s) % 10);
            r = (next(&s) % 2) ? lazuli_engine_ponderhit(a->engine) : lazuli_engine_stop(a->engine);
            if (r != LAZULI_RESULT_OK) fail("ponderhit/stop", r);
            break;
        }
        }
    }
    return NULL;
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* What glibc's allocator says, in kB: memory handed out (heap chunks in use plus mmapped
 * blocks) and free memory it keeps in its arenas. If resident memory grows while the first
 * stays flat, the growth is memory the allocator holds, not memory lazuli keeps. */
static void heap_kb(long *in_use, long *free_held) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 m = mallinfo2();
    *in_use = (long)((m.uordblks + m.hblkhd) / 1024);
    *free_held = (long)(m.fordblks / 1024);
#else
    *in_use = -1;
    *free_held = -1;
#endif
}

int main(int argc, char **argv) {
    long seconds = argc > 1 ? atol(argv[1]) : 60;
    long sample = argc > 2 ? atol(argv[2]) : 60;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    /* trim = 1: glibc's malloc_trim(0) before each sample, which returns the free memory of
     * every arena to the system (tells allocator retention from growth). */
    int trim = argc > 4 ? atoi(argv[4]) : 0;
    /* memcheck = 0: no verdict on resident memory (under valgrind it is valgrind's own). */
    int memcheck = argc > 5 ? atoi(argv[5]) : 1;
    if (seconds <= 0 || sample <= 0) {
        fprintf(stderr, "usage: soak [seconds] [sample seconds] [seed] [trim 0|1] [memcheck 0|1]\n");
        return 2;
    }
    lazuli_engine *engines[ENGINES];
    pthread_t threads[ENGINES * HOSTS];
    host_args args[ENGINES * HOSTS];
    for (int e = 0; e < ENGINES; e++) {
        if (lazuli_engine_new(&engines[e]) != LAZULI_RESULT_OK) {
            fprintf(stderr, "engine_new failed\n");
            return 1;
        }
    }
    for (int i = 0; i < ENGINES * HOSTS; i++) {
        args[i].engine = engines[i / HOSTS];
        args[i].seed = seed * 1000003u + (uint64_t)i * 7919u + 1;
        pthread_create(&threads[i], NULL, host, &args[i]);
    }
    long first = 0, last = 0, peak = 0;
    long count = seconds / sample;
    long *kbs = calloc((size_t)(count > 0 ? count : 1), sizeof(long));
    long n = 0;
    for (long t = sample; t <= seconds; t += sample) {
        sleep_ms(sample * 1000);
#ifdef __GLIBC__
        if (trim) malloc_trim(0);
#endif
        long kb = rss_kb();
        long in_use, free_held;
        heap_kb(&in_use, &free_held);
        /* The first sample is taken after a warm-up: tables and histories are allocated. */
        if (first == 0) first = kb;
        last = kb;
        if (kb > peak) peak = kb;
        if (kbs && n < count) kbs[n++] = kb;
        printf("t %lds rss %ld kB heap in use %ld kB free held %ld kB calls %ld searches %ld "
               "failures %ld\n",
               t, kb, in_use, free_held, atomic_load(&calls), atomic_load(&searches),
               atomic_load(&failures));
        fflush(stdout);
    }
    atomic_store(&stop_all, 1);
    for (int i = 0; i < ENGINES * HOSTS; i++) pthread_join(threads[i], NULL);
    for (int e = 0; e < ENGINES; e++) lazuli_engine_free(engines[e]);
    long quarter = n / 4 > 0 ? n / 4 : 1, head = 0, tail = 0;
    for (long i = 0; i < quarter && i < n; i++) {
        head += kbs[i];
        tail += kbs[n - 1 - i];
    }
    head /= quarter;
    tail /= quarter;
    free(kbs);
    int grew = memcheck && n > 0 && tail > head + head / 10 + 8192;
    printf("summary: %lds, %ld calls, %ld searches, rss first %ld kB last %ld kB peak %ld kB, "
           "first quarter mean %ld kB last quarter mean %ld kB, %ld failures%s\n",
           seconds, atomic_load(&calls), atomic_load(&searches), first, last, peak, head, tail,
           atomic_load(&failures), grew ? ", MEMORY GREW" : "");
    return (atomic_load(&failures) == 0 && !grew) ? 0 : 1;
}
