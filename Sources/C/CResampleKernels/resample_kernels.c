#include "resample_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

int thumbd_resample_has_avx2(void) {
    /* The runtime's CPU model is filled once (the call returns at once after); then a flag read. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

__attribute__((target("avx2")))
void thumbd_resample_fixed_row_avx2(const uint8_t *src, const long *starts, const int16_t *weights,
                                    long stride, long outputs, float *out) {
    const __m256i zero = _mm256_setzero_si256();
    const __m128i zero128 = _mm_setzero_si128();
    const __m128 scale = _mm_set1_ps(1.0f / 16384.0f);
    const uint8_t *w = (const uint8_t *)weights;
    const long wide = stride & ~7L;
    for (long i = 0; i < outputs; i++) {
        const uint8_t *p = src + 4 * starts[i];
        __m256i a0 = zero, a1 = zero;
        for (long t = 0; t < wide; t += 8) {
            /* Pixels p0...p7 and p1...p8: per 128-bit lane, interleaving their bytes pairs p0 with p1
             * and p2 with p3 (p4 with p5, p6 with p7 in the upper lane), channel by channel. */
            __m256i x = _mm256_loadu_si256((const __m256i *)p);
            __m256i y = _mm256_loadu_si256((const __m256i *)(p + 4));
            __m256i pairs01 = _mm256_unpacklo_epi8(_mm256_unpacklo_epi8(x, y), zero);
            __m256i pairs23 = _mm256_unpacklo_epi8(_mm256_unpackhi_epi8(x, y), zero);
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(pairs01, _mm256_loadu_si256((const __m256i *)w)));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(pairs23, _mm256_loadu_si256((const __m256i *)(w + 32))));
            p += 32;
            w += 64;
        }
        __m256i both = _mm256_add_epi32(a0, a1);
        __m128i sums = _mm_add_epi32(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
        if (wide < stride) {
            __m128i x = _mm_loadu_si128((const __m128i *)p);
            __m128i y = _mm_loadu_si128((const __m128i *)(p + 4));
            __m128i p01 = _mm_unpacklo_epi8(_mm_unpacklo_epi8(x, y), zero128);
            __m128i p23 = _mm_unpacklo_epi8(_mm_unpackhi_epi8(x, y), zero128);
            sums = _mm_add_epi32(sums, _mm_madd_epi16(p01, _mm_loadu_si128((const __m128i *)w)));
            sums = _mm_add_epi32(sums, _mm_madd_epi16(p23, _mm_loadu_si128((const __m128i *)(w + 16))));
            w += 32;
        }
        _mm_storeu_ps(out + 4 * i, _mm_mul_ps(_mm_cvtepi32_ps(sums), scale));
    }
}

/* The vertical pass's arithmetic lane by lane as the SSE version does it (a multiply, then an add,
 * tap after tap: no FMA), two pixels a register; then the same rounding and saturation. */
__attribute__((target("avx2")))
long thumbd_resample_vertical_row_avx2(const float *rows, long width, const float *weights, long count, uint8_t *out) {
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    const __m256i bias = _mm256_set1_epi32(0x4B400000);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256i opaque = _mm256_set1_epi32((int)0xFF000000u);
    long x = 0;
    for (; x + 8 <= width; x += 8) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const float *p = rows + 4 * x;
        for (long t = 0; t < count; t++) {
            const __m256 w = _mm256_set1_ps(weights[t]);
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_loadu_ps(p), w));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(_mm256_loadu_ps(p + 8), w));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(_mm256_loadu_ps(p + 16), w));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(_mm256_loadu_ps(p + 24), w));
            p += 4 * width;
        }
        /* Round to nearest through the float's mantissa, then saturate to 0...255 by packing. */
        __m256i i0 = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(a0, magic)), bias);
        __m256i i1 = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(a1, magic)), bias);
        __m256i i2 = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(a2, magic)), bias);
        __m256i i3 = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(a3, magic)), bias);
        /* Per 128-bit lane: (p0, p2), (p1, p3) as int16, then bytes p0 p2 p4 p6 | p1 p3 p5 p7. */
        __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
        bytes = _mm256_or_si256(_mm256_permutevar8x32_epi32(bytes, order), opaque);
        _mm256_storeu_si256((__m256i *)(out + 4 * x), bytes);
    }
    return x;
}

#else

int thumbd_resample_has_avx2(void) { return 0; }

long thumbd_resample_vertical_row_avx2(const float *rows, long width, const float *weights, long count, uint8_t *out) {
    (void)rows; (void)width; (void)weights; (void)count; (void)out;
    return 0;
}

void thumbd_resample_fixed_row_avx2(const uint8_t *src, const long *starts, const int16_t *weights,
                                    long stride, long outputs, float *out) {
    (void)src; (void)starts; (void)weights; (void)stride; (void)outputs; (void)out;
}

#endif
