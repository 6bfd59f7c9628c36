#ifndef THUMBD_TIFF_BRIDGE_H
#define THUMBD_TIFF_BRIDGE_H

/*
 * A small C layer over libtiff 4.5 for what Swift cannot do itself: TIFFGetField and TIFFSetField
 * are variadic, and libtiff's message handlers take a va_list. Everything else (reading strips and
 * tiles, TIFFRGBAImage) Swift calls on libtiff directly, through the handle this bridge opens.
 *
 *   t = thumbd_tiff_open(bytes, length, max_single_alloc)   the bytes must outlive t
 *   h = thumbd_tiff_handle(t)                                NULL when libtiff refused the file
 *   ... fields through the getters below, pixels through libtiff ...
 *   thumbd_tiff_close(t)
 *
 * libtiff never writes to stderr once a handle has been opened here: its process-wide handlers are
 * cleared (once, under pthread_once), and each handle's first error is kept in the handle for the
 * caller to put in its own error; warnings are dropped.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libtiff's handle (its TIFF type), named by its struct tag so this header needs no libtiff header. */
struct tiff;

typedef struct thumbd_tiff thumbd_tiff;

/**
 * Opens the first directory of the TIFF file in `length` bytes at `data` (read in place, never
 * written, through libtiff's memory-mapping hooks). Every single allocation libtiff makes for this
 * handle is refused past `max_single_alloc` bytes. Returns NULL only when the bridge's own small
 * state cannot be allocated; when libtiff refuses the file, thumbd_tiff_handle() is NULL and
 * thumbd_tiff_first_error() says why.
 */
thumbd_tiff *thumbd_tiff_open(const uint8_t *data, size_t length, int64_t max_single_alloc);

/** Closes libtiff's handle (if any) and frees the bridge's state. NULL is accepted. */
void thumbd_tiff_close(thumbd_tiff *t);

/** libtiff's handle, for calls into libtiff; NULL when the open failed. Valid until thumbd_tiff_close. */
struct tiff *thumbd_tiff_handle(const thumbd_tiff *t);

/**
 * The first error libtiff reported for this handle since it was opened or thumbd_tiff_clear_errors()
 * ("module: message"), or an empty string. The first is the cause; later ones are consequences.
 * Warnings (libtiff reads on past them) are swallowed.
 */
const char *thumbd_tiff_first_error(const thumbd_tiff *t);

/** 1 when libtiff asked to read bytes past the end of the data (a short read), else 0. */
int thumbd_tiff_read_past_end(const thumbd_tiff *t);

/** Forgets the errors reported so far, so the next failure's own message comes first. */
void thumbd_tiff_clear_errors(thumbd_tiff *t);

/*
 * TIFFGetField / TIFFGetFieldDefaulted for the value shapes thumbd reads. Each returns 1 when the
 * tag has a value (the file's, or with `defaulted` libtiff's default), else 0 and leaves the
 * outputs untouched. Pointers handed back belong to libtiff's directory: valid until close.
 * libtiff writes a tag's value as the type its own field table gives that tag, whatever pointer it
 * is handed: thumbd_tiff_get_u16 is only for uint16 tags, thumbd_tiff_get_u32 only for uint32 ones.
 */
int thumbd_tiff_get_u16(struct tiff *tif, uint32_t tag, int defaulted, uint16_t *value);
int thumbd_tiff_get_u32(struct tiff *tif, uint32_t tag, int defaulted, uint32_t *value);
/** ExtraSamples: how many, and their kinds (EXTRASAMPLE_*). */
int thumbd_tiff_get_extra_samples(struct tiff *tif, uint16_t *count, const uint16_t **kinds);
/** ColorMap: three arrays of 2^BitsPerSample 16-bit entries. */
int thumbd_tiff_get_colormap(struct tiff *tif, const uint16_t **red, const uint16_t **green, const uint16_t **blue);
/** ICCProfile: its bytes as stored. */
int thumbd_tiff_get_icc_profile(struct tiff *tif, uint32_t *length, const uint8_t **bytes);

/** Asks libtiff's JPEG codec to convert YCbCr to RGB (TIFFTAG_JPEGCOLORMODE = JPEGCOLORMODE_RGB). */
int thumbd_tiff_set_jpeg_rgb_output(struct tiff *tif);

#ifdef __cplusplus
}
#endif

#endif
