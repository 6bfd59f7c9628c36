#ifndef THUMBD_PNG_BRIDGE_H
#define THUMBD_PNG_BRIDGE_H

/*
 * A small C layer over libpng 1.6's full API. libpng reports errors with longjmp; every setjmp
 * lives in the functions below, so a longjmp never crosses a Swift frame. Each call returns a
 * status; on failure thumbd_png_decoder_message() says why, in words.
 *
 * Decoding, in order:
 *   d = thumbd_png_decoder_create(bytes, length)      the bytes must outlive the decoder
 *   thumbd_png_read_info(d, &info)                     IHDR and the chunks before IDAT
 *   (the caller checks its size limits here, before any pixel memory exists)
 *   thumbd_png_start_rgba8(d, &row_bytes)              every transformation to 8-bit RGBA
 *   thumbd_png_read_rows(d, ...)  (not interlaced)  or  thumbd_png_read_image(d, ...)
 *   thumbd_png_finish(d)                               the chunks after the image data
 *   thumbd_png_decoder_destroy(d)
 *
 * Output pixels are RGBA, 8 bits per channel, not premultiplied, with the stored sample values:
 * no gamma correction of any kind. The colour chunks (iCCP, sRGB, gAMA, cHRM) are read and
 * reported in thumbd_png_info, for the caller's colour management.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum thumbd_png_status {
    THUMBD_PNG_OK = 0,
    /** The data breaks the PNG format (bad signature, bad CRC on a critical chunk, bad IHDR, zlib error...). */
    THUMBD_PNG_CORRUPT = 1,
    /** The data ends before the image does. */
    THUMBD_PNG_TRUNCATED = 2,
    /** A dimension is over libpng's per-dimension limit set by the bridge (see THUMBD_PNG_MAX_DIMENSION). */
    THUMBD_PNG_LIMIT = 3,
    /** libpng needed more memory than the decoder's budget allows (or malloc failed). */
    THUMBD_PNG_NO_MEMORY = 4,
    /** The calls came in the wrong order, or after an earlier failure. */
    THUMBD_PNG_MISUSE = 5,
} thumbd_png_status;

/** Largest width or height the bridge lets libpng accept; the pixel-count limit is the caller's. */
#define THUMBD_PNG_MAX_DIMENSION (1u << 24)

/** Largest single ancillary chunk libpng may allocate (also bounds any decompressed chunk). */
#define THUMBD_PNG_CHUNK_MALLOC_MAX ((size_t)4 << 20)

typedef struct thumbd_png_decoder thumbd_png_decoder;

typedef struct thumbd_png_info {
    uint32_t width;
    uint32_t height;
    /** PNG colour type as stored: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
    int32_t color_type;
    /** Bits per sample as stored: 1, 2, 4, 8 or 16. */
    int32_t bit_depth;
    /** 1 when the image is Adam7-interlaced. */
    int32_t interlaced;
    /** 1 when the file has an alpha channel or a tRNS chunk. */
    int32_t has_alpha;
    /** 1 when the file has a tRNS chunk. */
    int32_t has_trns;
    /** The eXIf payload (a TIFF structure) when the chunk precedes the image data, else NULL.
     *  Owned by the decoder: valid until thumbd_png_decoder_destroy. */
    const uint8_t *exif;
    uint32_t exif_length;
    /** Warnings libpng raised so far (damaged ancillary chunks and the like); never fatal. */
    uint32_t warnings;
    /** The iCCP profile, inflated (libpng checked its header against the colour type), else NULL.
     *  Owned by the decoder: valid until thumbd_png_decoder_destroy. */
    const uint8_t *icc_profile;
    uint32_t icc_profile_length;
    /** 1 when an sRGB chunk is present. */
    int32_t has_srgb;
    /** gAMA in units of 1/100000 (45455 for 1/2.2), or 0 when absent. */
    int32_t gamma;
    /** 1 when cHRM is present: white x, y, red x, y, green x, y, blue x, y in units of 1/100000. */
    int32_t has_chromaticities;
    int32_t chromaticities[8];
} thumbd_png_info;

/**
 * A decoder reading `length` bytes at `data` (not copied). Everything libpng and zlib allocate
 * for it is counted, and refused past `memory_limit` bytes (the decode then fails with
 * THUMBD_PNG_NO_MEMORY, or skips the ancillary chunk that asked). NULL only when out of memory.
 */
thumbd_png_decoder *thumbd_png_decoder_create(const uint8_t *data, size_t length, size_t memory_limit);

/** Frees the decoder and everything libpng allocated for it. NULL is accepted. */
void thumbd_png_decoder_destroy(thumbd_png_decoder *decoder);

/** Why the last call failed (empty after success). Valid until the next call on the decoder. */
const char *thumbd_png_decoder_message(const thumbd_png_decoder *decoder);

/** The first warning libpng raised, or an empty string. */
const char *thumbd_png_decoder_first_warning(const thumbd_png_decoder *decoder);

/** The most memory libpng and zlib held at once for this decoder so far, in bytes. */
size_t thumbd_png_decoder_peak_memory(const thumbd_png_decoder *decoder);

/** Reads the signature, IHDR and every chunk up to the image data. */
thumbd_png_status thumbd_png_read_info(thumbd_png_decoder *decoder, thumbd_png_info *info);

/**
 * Sets up palette expansion, tRNS to alpha, grey 1/2/4 to 8 bits by bit replication, grey to RGB,
 * opaque alpha where the file has none, 16 to 8 bits by keeping the high byte, and Adam7
 * de-interlacing. libpng allocates its row buffers here. `row_bytes` receives width * 4.
 */
thumbd_png_status thumbd_png_start_rgba8(thumbd_png_decoder *decoder, size_t *row_bytes);

/**
 * Reads the next `count` rows of a non-interlaced image into `pixels`, `stride` bytes apart
 * (stride >= width * 4). Refuses interlaced images (use thumbd_png_read_image).
 */
thumbd_png_status thumbd_png_read_rows(thumbd_png_decoder *decoder, uint8_t *pixels, size_t stride, uint32_t count);

/** Reads the whole image (every Adam7 pass when interlaced) into `pixels`, `stride` bytes apart. */
thumbd_png_status thumbd_png_read_image(thumbd_png_decoder *decoder, uint8_t *pixels, size_t stride);

/** Reads the chunks after the image data up to IEND, checking their structure and CRCs. */
thumbd_png_status thumbd_png_finish(thumbd_png_decoder *decoder);

/**
 * Encodes RGBA8 pixels (`stride` bytes apart) as an 8-bit PNG: colour type 6 when `keep_alpha`
 * is nonzero, else colour type 2 with the alpha bytes dropped. Default zlib compression, no
 * ancillary chunks. On success `*out` holds malloc'ed bytes the caller releases with
 * thumbd_png_free. `message` (may be NULL) receives the reason on failure.
 */
thumbd_png_status thumbd_png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                                          int keep_alpha, uint8_t **out, size_t *out_length,
                                          char *message, size_t message_capacity);

void thumbd_png_free(void *bytes);

#ifdef __cplusplus
}
#endif

#endif
