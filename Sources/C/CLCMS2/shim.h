#ifndef THUMBD_LCMS2_SHIM_H
#define THUMBD_LCMS2_SHIM_H

#include <lcms2.h>

/* lcms2 builds its pixel formats with function-like macros, which Swift does not import:
 * the formats thumbd uses, as plain constants. */
enum {
    THUMBD_TYPE_RGBA_8 = TYPE_RGBA_8,
    /* Grey in the first byte of each 4-byte pixel (a grey image expanded to RGBA): G, B and A ride along. */
    THUMBD_TYPE_GRAY_8_IN_RGBA = (COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3)),
    THUMBD_TYPE_CMYK_8 = TYPE_CMYK_8,
    /* Adobe's CMYK JPEGs: 255 means no ink. */
    THUMBD_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV,
};

#endif
