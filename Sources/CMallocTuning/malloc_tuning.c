#include "malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int thumbd_fix_mmap_threshold(int bytes) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, bytes) == 1 ? 1 : 0;
#else
    (void)bytes;
    return 0;
#endif
}

int thumbd_limit_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count) == 1 ? 1 : 0;
#else
    (void)count;
    return 0;
#endif
}
