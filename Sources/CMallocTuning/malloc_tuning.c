#include "malloc_tuning.h"

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
#define M_ARENA_MAX 0
#endif

int thumbd_fix_mmap_threshold(int bytes) { return set_malloc_option(M_MMAP_THRESHOLD, bytes); }

int thumbd_limit_arenas(int count) { return set_malloc_option(M_ARENA_MAX, count); }
