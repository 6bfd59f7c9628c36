#include "malloc_tuning.h"

/* Any C library header first: glibc defines __GLIBC__ only from its own headers (features.h),
   so testing it before one is included reads "not glibc" and turns every call below into a no-op. */
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* 1 when glibc took the setting; 0 elsewhere or when it refused. */
static int set_malloc_option(int option, int value) {
#if defined(__GLIBC__)
    return mallopt(option, value) == 1 ? 1 : 0;
#else
    (void)option;
    (void)value;
    return 0;
#endif
}

#if !defined(__GLIBC__)
#define M_MMAP_THRESHOLD 0
#define M_TRIM_THRESHOLD 0
#define M_ARENA_MAX 0
#endif

int thumbd_fix_mmap_threshold(int bytes) { return set_malloc_option(M_MMAP_THRESHOLD, bytes); }

int thumbd_fix_trim_threshold(int bytes) { return set_malloc_option(M_TRIM_THRESHOLD, bytes); }

int thumbd_limit_arenas(int count) { return set_malloc_option(M_ARENA_MAX, count); }

int thumbd_read_heap_usage(thumbd_heap_usage *usage) {
    usage->in_use = 0;
    usage->free_in_arenas = 0;
    usage->from_system = 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    usage->in_use = info.uordblks + info.hblkhd;
    usage->free_in_arenas = info.fordblks;
    usage->from_system = info.arena + info.hblkhd;
    return 1;
#else
    return 0;
#endif
}

int thumbd_release_free_heap(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
