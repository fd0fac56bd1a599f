/* The C kernel natively: native KERNEL N REPS runs it REPS times and prints
 * the median time in nanoseconds and the checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s scan|diff N REPS\n", argv[0]);
        return 2;
    }
    uint64_t (*run)(int) = strcmp(argv[1], "scan") == 0 ? kernel_scan : kernel_diff;
    int n = atoi(argv[2]), reps = atoi(argv[3]);
    long long *ns = calloc((size_t)reps, sizeof *ns);
    uint64_t sum = 0;
    for (int i = 0; i < reps; i++) {
        struct timespec s, e;
        clock_gettime(CLOCK_MONOTONIC, &s);
        sum = run(n);
        clock_gettime(CLOCK_MONOTONIC, &e);
        ns[i] = (e.tv_sec - s.tv_sec) * 1000000000LL + (e.tv_nsec - s.tv_nsec);
    }
    qsort(ns, (size_t)reps, sizeof *ns, cmp);
    printf("%lld %llu\n", ns[reps / 2], (unsigned long long)sum);
    return 0;
}
