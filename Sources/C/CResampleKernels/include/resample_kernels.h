#ifndef THUMBD_RESAMPLE_KERNELS_H
#define THUMBD_RESAMPLE_KERNELS_H
/*
 * The resizer's horizontal pass for opaque RGBA8 rows in 16-bit fixed point, eight taps a step on
 * CPUs with AVX2 (chosen at run time: the package is built for baseline x86-64), and its vertical
 * pass two pixels a register. The integer sums and the float arithmetic are the SSE2 passes'
 * exactly, so every CPU makes the same thumbnail.
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

/*
 * One output row of the vertical pass for opaque pixels: pixel x is the sum over `count` taps of the
 * float pixels at rows + 4 * x + t * 4 * width (RGBA floats, rows `width` pixels apart) times
 * weights[t], rounded and saturated to RGBA8 with alpha 255, at out + 4 * x. The same bytes as the
 * Swift pass. Does the pixels in whole groups of eight and returns how many (0 without AVX2): the
 * caller does the rest.
 */
long thumbd_resample_vertical_row_avx2(const float *rows, long width, const float *weights, long count, uint8_t *out);

#endif
