/*
 * thumbd's libtiff bridge. See include/tiff_bridge.h for the contract.
 *
 * libtiff reads the caller's bytes through the client procedures below: a cursor over one
 * in-memory buffer, which is also handed to libtiff as a "mapped file" so strips are decoded in
 * place without a copy. The buffer is only ever read (libtiff maps files read-only itself).
 */
#include "tiff_bridge.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

enum { MESSAGE_CAPACITY = 320 };

struct thumbd_tiff {
    TIFF *tif;

    /* The memory source: libtiff's thandle_t points at this struct for the handle's whole life. */
    const uint8_t *data;
    uint64_t length;
    uint64_t position;
    int read_past_end;

    int has_error;
    char first_error[MESSAGE_CAPACITY];
};

/* --- libtiff's process-wide handlers ------------------------------------------------------- */

/* libtiff's default handlers print to stderr. Messages about a handle reach its own handlers
 * first (set through TIFFOpenOptions below, which stop them there); the rest (a few reported
 * before a handle exists) would reach these, so they are cleared, once for the process. */
static pthread_once_t globals_once = PTHREAD_ONCE_INIT;

static void silence_globals(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandlerExt(NULL);
    TIFFSetWarningHandlerExt(NULL);
}

/* --- per-handle messages ------------------------------------------------------------------- */

static void format_message(char *to, const char *module, const char *format, va_list args) {
    int used = 0;
    if (module != NULL && module[0] != '\0') {
        used = snprintf(to, MESSAGE_CAPACITY, "%s: ", module);
        if (used < 0 || used >= MESSAGE_CAPACITY) used = 0;
    }
    if (vsnprintf(to + used, (size_t)(MESSAGE_CAPACITY - used), format, args) < 0) to[used] = '\0';
}

/* Returning 1 tells libtiff the message is handled: it does not go on to the global handlers. */
static int on_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    thumbd_tiff *t = (thumbd_tiff *)user_data;
    if (!t->has_error) {
        format_message(t->first_error, module, format, args);
        t->has_error = 1;
    }
    return 1;
}

/* Warnings are things libtiff reads on past (an unknown tag, a damaged optional one): dropped. */
static int on_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list args) {
    (void)tif;
    (void)user_data;
    (void)module;
    (void)format;
    (void)args;
    return 1;
}

/* --- the memory source --------------------------------------------------------------------- */

static tmsize_t source_read(thandle_t handle, void *buffer, tmsize_t size) {
    thumbd_tiff *t = (thumbd_tiff *)handle;
    if (size < 0) return -1;
    uint64_t available = t->position < t->length ? t->length - t->position : 0;
    uint64_t count = (uint64_t)size < available ? (uint64_t)size : available;
    if (count < (uint64_t)size) t->read_past_end = 1;
    if (count > 0) memcpy(buffer, t->data + t->position, (size_t)count);
    t->position += count;
    return (tmsize_t)count;
}

static tmsize_t source_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle;
    (void)buffer;
    (void)size;
    return -1; /* opened read-only: libtiff never writes */
}

static toff_t source_seek(thandle_t handle, toff_t offset, int whence) {
    thumbd_tiff *t = (thumbd_tiff *)handle;
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = t->position; break;
    case SEEK_END: base = t->length; break;
    default: return (toff_t)-1;
    }
    /* Past the end is allowed (a later read comes back short); past 2^63 is not an offset. */
    if (offset > (uint64_t)INT64_MAX - base) return (toff_t)-1;
    t->position = base + offset;
    return (toff_t)t->position;
}

static int source_close(thandle_t handle) {
    (void)handle;
    return 0; /* the caller owns the bytes */
}

static toff_t source_size(thandle_t handle) {
    return (toff_t)((thumbd_tiff *)handle)->length;
}

static int source_map(thandle_t handle, void **base, toff_t *size) {
    thumbd_tiff *t = (thumbd_tiff *)handle;
    /* libtiff only reads a mapped file (TIFFClientOpen maps for mode "r" alone). */
    *base = (void *)(uintptr_t)t->data;
    *size = (toff_t)t->length;
    return 1;
}

static void source_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

/* --- opening and closing ------------------------------------------------------------------- */

thumbd_tiff *thumbd_tiff_open(const uint8_t *data, size_t length, int64_t max_single_alloc) {
    pthread_once(&globals_once, silence_globals);
    thumbd_tiff *t = (thumbd_tiff *)calloc(1, sizeof(thumbd_tiff));
    if (t == NULL) return NULL;
    t->data = data;
    t->length = (uint64_t)length;

    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        snprintf(t->first_error, MESSAGE_CAPACITY, "libtiff could not allocate its open options");
        t->has_error = 1;
        return t;
    }
    /* 0 would mean "no limit" to libtiff. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_single_alloc > 0 ? (tmsize_t)max_single_alloc : 1);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, t);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, t);
    /* The name only appears in libtiff's messages. */
    t->tif = TIFFClientOpenExt("TIFF", "r", (thandle_t)t, source_read, source_write, source_seek, source_close,
                               source_size, source_map, source_unmap, options);
    TIFFOpenOptionsFree(options);
    return t;
}

void thumbd_tiff_close(thumbd_tiff *t) {
    if (t == NULL) return;
    if (t->tif != NULL) TIFFClose(t->tif);
    free(t);
}

struct tiff *thumbd_tiff_handle(const thumbd_tiff *t) { return t->tif; }
const char *thumbd_tiff_first_error(const thumbd_tiff *t) { return t->first_error; }
int thumbd_tiff_read_past_end(const thumbd_tiff *t) { return t->read_past_end; }

void thumbd_tiff_clear_errors(thumbd_tiff *t) {
    t->has_error = 0;
    t->first_error[0] = '\0';
}

/* --- fields -------------------------------------------------------------------------------- */

int thumbd_tiff_get_u16(struct tiff *tif, uint32_t tag, int defaulted, uint16_t *value) {
    uint16_t v = 0;
    int found = defaulted ? TIFFGetFieldDefaulted(tif, tag, &v) : TIFFGetField(tif, tag, &v);
    if (found) *value = v;
    return found ? 1 : 0;
}

int thumbd_tiff_get_u32(struct tiff *tif, uint32_t tag, int defaulted, uint32_t *value) {
    uint32_t v = 0;
    int found = defaulted ? TIFFGetFieldDefaulted(tif, tag, &v) : TIFFGetField(tif, tag, &v);
    if (found) *value = v;
    return found ? 1 : 0;
}

int thumbd_tiff_get_extra_samples(struct tiff *tif, uint16_t *count, const uint16_t **kinds) {
    uint16_t n = 0;
    const uint16_t *k = NULL;
    if (!TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &n, &k)) return 0;
    *count = k == NULL ? 0 : n;
    *kinds = k;
    return 1;
}

int thumbd_tiff_get_colormap(struct tiff *tif, const uint16_t **red, const uint16_t **green, const uint16_t **blue) {
    const uint16_t *r = NULL, *g = NULL, *b = NULL;
    if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &r, &g, &b) || r == NULL || g == NULL || b == NULL) return 0;
    *red = r;
    *green = g;
    *blue = b;
    return 1;
}

int thumbd_tiff_get_icc_profile(struct tiff *tif, uint32_t *length, const uint8_t **bytes) {
    uint32_t n = 0;
    const void *p = NULL;
    if (!TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &p) || p == NULL) return 0;
    *length = n;
    *bytes = (const uint8_t *)p;
    return 1;
}

int thumbd_tiff_set_jpeg_rgb_output(struct tiff *tif) {
    return TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB) ? 1 : 0;
}
