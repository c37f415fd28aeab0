/*
 * The bench through the C library: the positions of benches/positions.epd searched to a
 * fixed depth with one thread, as `lazuli bench 16 1 <depth>` does through the UCI binary.
 * Prints the same closing lines, so the node counts must agree and the speeds compare.
 *
 *   c_api_bench benches/positions.epd 11
 *
 * Built and compared with the UCI binary by benches/compare_c.sh (see the README).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lazuli.h"

static unsigned long long last_nodes;

static void on_info(void *userdata, const lazuli_info *info) {
    (void)userdata;
    last_nodes = (unsigned long long)info->nodes;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s POSITIONS.epd DEPTH\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    lazuli_engine *engine = NULL;
    if (lazuli_engine_new(&engine) != LAZULI_RESULT_OK) {
        return 1;
    }
    lazuli_engine_new_game(engine);
    lazuli_limits limits = lazuli_limits_default();
    limits.depth = (uint32_t)atoi(argv[2]);
    char line[256];
    unsigned long long nodes = 0;
    double seconds = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') {
            continue;
        }
        if (lazuli_engine_set_position(engine, line, NULL) != LAZULI_RESULT_OK) {
            fprintf(stderr, "bad position: %s\n", line);
            return 1;
        }
        last_nodes = 0;
        double start = now_s();
        lazuli_engine_go(engine, &limits, on_info, NULL, NULL);
        lazuli_engine_wait(engine, NULL, 0);
        seconds += now_s() - start;
        nodes += last_nodes;
    }
    fclose(f);
    lazuli_engine_free(engine);
    printf("===========================\n");
    printf("Total time (ms) : %.0f\n", seconds * 1000);
    printf("Nodes searched  : %llu\n", nodes);
    printf("Nodes/second    : %.0f\n", nodes / seconds);
    return 0;
}
