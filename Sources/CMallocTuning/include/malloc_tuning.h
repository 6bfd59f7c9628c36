#ifndef THUMBD_MALLOC_TUNING_H
#define THUMBD_MALLOC_TUNING_H

/// Fixes glibc malloc's mmap threshold at `bytes` (no dynamic raising). Returns 1 when set,
/// 0 when the C library has no such setting (not glibc) or refused it.
int thumbd_fix_mmap_threshold(int bytes);

/// Caps the number of glibc malloc arenas at `count`. Returns 1 when set, 0 when the C library has
/// no such setting (not glibc) or refused it.
int thumbd_limit_arenas(int count);

#endif
