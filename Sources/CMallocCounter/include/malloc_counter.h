#ifndef HANDYD_MALLOC_COUNTER_H
#define HANDYD_MALLOC_COUNTER_H
#include <stdint.h>

// Counts heap allocations made by the whole process (all threads) while counting is on.
// The benchmark executable defines malloc & co., so the dynamic linker binds every library's
// calls (libswiftCore, Foundation, NIO) to them; they forward to glibc's __libc_* entry points.
void handyd_malloc_counter_start(void);
void handyd_malloc_counter_stop(void);
void handyd_malloc_counter_reset(void);
int64_t handyd_malloc_counter_allocations(void);
int64_t handyd_malloc_counter_bytes(void);
#endif
