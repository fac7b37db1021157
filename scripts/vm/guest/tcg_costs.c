/* What one operation of each kind costs, to compare the qemu guest (TCG) with the host
 * (docs/PERFORMANCE.md, section 5): integer arithmetic, double arithmetic, libm (sqrt + atan2 +
 * cos), an atomic add, malloc + free. Prints ns per operation; no assertions.
 *   gcc -O2 -o /tmp/tcg_costs scripts/vm/guest/tcg_costs.c -lm && /tmp/tcg_costs [N]
 * and the same binary in the guest: scripts/vm/qemu-run.sh -- /tmp/tcg_costs 2000000 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* volatile sinks: the loops' results are used, so the compiler keeps the work */
static volatile uint64_t sink;
static volatile double double_sink;

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    if (n < 10) n = 10;
    double t = now();
    uint64_t a = 1;
    for (long i = 0; i < n; i++) { a = a * 6364136223846793005ULL + (uint64_t)i; a ^= a >> 13; }
    sink = a;
    printf("integer   %8.2f ns/op\n", (now() - t) / n * 1e9);

    t = now();
    double x = 1.0, y = 0.5;
    for (long i = 0; i < n; i++) { x = x * 0.999999 + y; y = y * 1.000001 - 0.25 * x; }
    double_sink = x + y;
    printf("double    %8.2f ns/op\n", (now() - t) / n * 1e9);

    t = now();
    double z = 0;
    for (long i = 0; i < n / 10; i++) z += sqrt((double)i) + atan2((double)i, z + 1.0) + cos(z);
    double_sink = z;
    printf("libm      %8.2f ns/op (sqrt + atan2 + cos)\n", (now() - t) / (n / 10) * 1e9);

    t = now();
    uint64_t c = 0;
    for (long i = 0; i < n; i++) __atomic_fetch_add(&c, 1, __ATOMIC_RELAXED);
    sink = c;
    printf("atomic    %8.2f ns/op (lock add)\n", (now() - t) / n * 1e9);

    t = now();
    for (long i = 0; i < n / 10; i++) { void *p = malloc(48 + (i & 63)); sink += (uintptr_t)p; free(p); }
    printf("malloc    %8.2f ns/op (malloc + free)\n", (now() - t) / (n / 10) * 1e9);
    return 0;
}
