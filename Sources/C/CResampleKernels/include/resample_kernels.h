#ifndef THUMBD_RESAMPLE_KERNELS_H
#define THUMBD_RESAMPLE_KERNELS_H
/*
 * The resizer's horizontal pass for opaque RGBA8 rows in 16-bit fixed point, eight taps a step on
 * CPUs with AVX2 (chosen at run time: the package is built for baseline x86-64). The integer sums
 * are the SSE2 pass's exactly, so every CPU makes the same thumbnail.
 */
#include <stdint.h>

/* 1 when this CPU has AVX2 (and the build targets x86-64), else 0. */
int thumbd_resample_has_avx2(void);

/*
 * One row: output i is the sum over `stride` taps (a multiple of 4) of the pixels from
 * src + 4 * starts[i], times its weights, divided by 16384, as four floats at out + 4 * i.
 * Weights: per output, per group of eight taps the tap pairs (0,1), (4,5), (2,3), (6,7), then for a
 * last group of four (stride % 8 == 4) the pairs (0,1), (2,3); each pair as 8 int16 lanes
 * (w_even, w_odd) x 4 channels, 16 bytes. Reads src up to byte 4 * (max(starts) + stride + 1).
 * Does nothing where thumbd_resample_has_avx2() is 0.
 */
void thumbd_resample_fixed_row_avx2(const uint8_t *src, const long *starts, const int16_t *weights,
                                    long stride, long outputs, float *out);

#endif
