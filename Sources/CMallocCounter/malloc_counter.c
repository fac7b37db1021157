// A malloc counter without LD_PRELOAD: definitions in the executable take precedence over
// libc's for every shared library. Only the bench links this target.
#include "malloc_counter.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int counting;
static int64_t allocations;
static int64_t bytes;

static inline void count(size_t size) {
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&bytes, (int64_t)size, __ATOMIC_RELAXED);
    }
}

void *malloc(size_t size) { count(size); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(n * size); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(size); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(size); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count(size);
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

void handyd_malloc_counter_start(void) { __atomic_store_n(&counting, 1, __ATOMIC_RELAXED); }
void handyd_malloc_counter_stop(void) { __atomic_store_n(&counting, 0, __ATOMIC_RELAXED); }
void handyd_malloc_counter_reset(void) {
    __atomic_store_n(&allocations, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&bytes, 0, __ATOMIC_RELAXED);
}
int64_t handyd_malloc_counter_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
int64_t handyd_malloc_counter_bytes(void) { return __atomic_load_n(&bytes, __ATOMIC_RELAXED); }
