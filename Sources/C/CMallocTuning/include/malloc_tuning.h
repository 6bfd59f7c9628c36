#ifndef THUMBD_MALLOC_TUNING_H
#define THUMBD_MALLOC_TUNING_H

/// Fixes glibc malloc's mmap threshold at `bytes` (no dynamic raising). Returns 1 when set,
/// 0 when the C library has no such setting (not glibc) or refused it.
int thumbd_fix_mmap_threshold(int bytes);

/// Fixes how much free memory at the top of an arena glibc keeps before giving it back
/// (M_TRIM_THRESHOLD). Returns 1 when set, 0 when not glibc or refused.
int thumbd_fix_trim_threshold(int bytes);

/// Caps the number of glibc malloc arenas at `count`. Returns 1 when set, 0 when the C library has
/// no such setting (not glibc) or refused it.
int thumbd_limit_arenas(int count);

/// What the allocator holds, summed over every arena (glibc's mallinfo2). `in_use`: bytes handed
/// out and not yet freed, mapped blocks included; `free_in_arenas`: bytes the arenas keep free
/// for reuse (part of the resident set once touched); `from_system`: arenas plus mapped blocks.
typedef struct {
    unsigned long long in_use;
    unsigned long long free_in_arenas;
    unsigned long long from_system;
} thumbd_heap_usage;

/// Fills `usage` and returns 1 under glibc; returns 0 (and zeros) elsewhere.
int thumbd_read_heap_usage(thumbd_heap_usage *usage);

/// Gives the free whole pages inside every arena back to the system (glibc's malloc_trim(0)).
/// Returns 1 when some memory was released, 0 when none was or the C library has no such call.
int thumbd_release_free_heap(void);

#endif
