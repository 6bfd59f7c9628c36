/*
 * thumbd's libpng bridge. See include/png_bridge.h for the contract.
 *
 * Every function that calls into libpng sets its own setjmp first and turns a longjmp into a
 * status code; nothing here lets libpng jump into a caller's frames. After a failure the libpng
 * state is undefined, so the decoder refuses every later call except destroy.
 */
#include "png_bridge.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum decoder_state {
    STATE_NEW,
    STATE_INFO_READ,
    STATE_STARTED,
    STATE_ROWS_DONE,
    STATE_FINISHED,
    STATE_FAILED,
};

struct thumbd_png_decoder {
    png_structp png;
    png_infop info;

    const uint8_t *data;
    size_t length;
    size_t offset;

    enum decoder_state state;
    thumbd_png_status failure;
    int ran_out_of_data;
    int over_user_limit;
    uint32_t warnings;
    uint32_t rows_read;
    uint32_t width;
    uint32_t height;
    int interlaced;

    /* Every byte libpng (and zlib through it) allocates for this decoder is counted here. */
    size_t memory_limit;
    size_t memory_in_use;
    size_t memory_peak;
    int memory_refused;

    char message[256];
    char first_warning[160];
    char last_warning[160];
};

static void copy_message(char *to, size_t capacity, const char *from) {
    if (capacity == 0) return;
    if (from == NULL) from = "";
    size_t n = strlen(from);
    if (n >= capacity) n = capacity - 1;
    memcpy(to, from, n);
    to[n] = '\0';
}

/* --- libpng callbacks -------------------------------------------------------------------- */

/* Each block carries its size in a header so frees can be counted; the header is max_align_t
 * sized to keep the block suitably aligned. */
typedef union {
    size_t size;
    max_align_t align;
} block_header;

static png_voidp on_malloc(png_structp png, png_alloc_size_t size) {
    thumbd_png_decoder *d = (thumbd_png_decoder *)png_get_mem_ptr(png);
    if (size > d->memory_limit - d->memory_in_use || size > SIZE_MAX - sizeof(block_header)) {
        d->memory_refused = 1;
        return NULL; /* libpng turns this into an error, or a warning for ancillary data */
    }
    block_header *block = (block_header *)malloc(sizeof(block_header) + size);
    if (block == NULL) return NULL;
    block->size = size;
    d->memory_in_use += size;
    if (d->memory_in_use > d->memory_peak) d->memory_peak = d->memory_in_use;
    return block + 1;
}

static void on_free(png_structp png, png_voidp pointer) {
    if (pointer == NULL) return;
    thumbd_png_decoder *d = (thumbd_png_decoder *)png_get_mem_ptr(png);
    block_header *block = (block_header *)pointer - 1;
    d->memory_in_use -= block->size;
    free(block);
}

static void on_read(png_structp png, png_bytep out, size_t count) {
    thumbd_png_decoder *d = (thumbd_png_decoder *)png_get_io_ptr(png);
    if (count > d->length - d->offset) {
        d->ran_out_of_data = 1;
        png_error(png, "PNG data ends early (truncated file)");
    }
    memcpy(out, d->data + d->offset, count);
    d->offset += count;
}

static void on_error(png_structp png, png_const_charp message) {
    thumbd_png_decoder *d = (thumbd_png_decoder *)png_get_error_ptr(png);
    copy_message(d->message, sizeof d->message, message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    thumbd_png_decoder *d = (thumbd_png_decoder *)png_get_error_ptr(png);
    if (d->warnings == 0) copy_message(d->first_warning, sizeof d->first_warning, message);
    copy_message(d->last_warning, sizeof d->last_warning, message);
    if (message != NULL && strstr(message, "exceeds user limit") != NULL) d->over_user_limit = 1;
    d->warnings++;
}

/* Called right after a longjmp landed: decides the status and records it. */
static thumbd_png_status fail(thumbd_png_decoder *d) {
    thumbd_png_status status;
    if (d->ran_out_of_data) {
        status = THUMBD_PNG_TRUNCATED;
    } else if (d->over_user_limit) {
        status = THUMBD_PNG_LIMIT;
        copy_message(d->message, sizeof d->message, d->last_warning);
    } else if (strcmp(d->message, "Not enough image data") == 0) {
        /* The zlib stream or the IDAT chunks stop before the last row: the image data is cut short. */
        status = THUMBD_PNG_TRUNCATED;
        copy_message(d->message, sizeof d->message, "PNG image data ends early (truncated image data)");
    } else if (d->memory_refused || strstr(d->message, "Out of memory") != NULL ||
               strstr(d->message, "out of memory") != NULL) {
        status = THUMBD_PNG_NO_MEMORY;
    } else {
        status = THUMBD_PNG_CORRUPT;
        /* libpng words a bad IHDR as "Invalid IHDR data" and gives the reason as a warning. */
        if (strcmp(d->message, "Invalid IHDR data") == 0 && d->last_warning[0] != '\0') {
            char detail[256];
            copy_message(detail, sizeof detail, d->message);
            size_t used = strlen(detail);
            snprintf(detail + used, sizeof detail - used, " (%s)", d->last_warning);
            copy_message(d->message, sizeof d->message, detail);
        }
    }
    d->state = STATE_FAILED;
    d->failure = status;
    return status;
}

static thumbd_png_status misuse(thumbd_png_decoder *d, const char *why) {
    if (d->state == STATE_FAILED) return d->failure;
    copy_message(d->message, sizeof d->message, why);
    return THUMBD_PNG_MISUSE;
}

/* --- decoding ---------------------------------------------------------------------------- */

thumbd_png_decoder *thumbd_png_decoder_create(const uint8_t *data, size_t length, size_t memory_limit) {
    /* volatile: read again after a longjmp lands in this frame. */
    thumbd_png_decoder *volatile d = (thumbd_png_decoder *)calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->data = data;
    d->length = data == NULL ? 0 : length;
    d->state = STATE_NEW;
    d->memory_limit = memory_limit;

    d->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, d, on_error, on_warning, d, on_malloc, on_free);
    if (d->png == NULL) {
        free(d);
        return NULL;
    }
    if (setjmp(png_jmpbuf(d->png))) {
        png_destroy_read_struct(&d->png, &d->info, NULL);
        free(d);
        return NULL;
    }
    d->info = png_create_info_struct(d->png);
    if (d->info == NULL) {
        png_destroy_read_struct(&d->png, NULL, NULL);
        free(d);
        return NULL;
    }
    png_set_read_fn(d->png, d, on_read);

    /* Critical-chunk CRC errors are fatal; ancillary ones warn and drop the chunk. */
    png_set_crc_action(d->png, PNG_CRC_DEFAULT, PNG_CRC_DEFAULT);
    png_set_benign_errors(d->png, 1);

    /* Memory bounds. The pixel-count limit is the caller's; these keep libpng's own
     * allocations small whatever the file claims. */
    png_set_user_limits(d->png, THUMBD_PNG_MAX_DIMENSION, THUMBD_PNG_MAX_DIMENSION);
    png_set_chunk_malloc_max(d->png, THUMBD_PNG_CHUNK_MALLOC_MAX);
    png_set_chunk_cache_max(d->png, 128);

    /* Skip, unread, every chunk but IHDR, PLTE, tRNS, IDAT, IEND, eXIf and the colour chunks:
     * text (and so any compressed-text zlib bomb), sBIT, bKGD, sPLT and every unknown chunk.
     * Skipped chunks are still CRC-checked as they pass. iCCP is inflated within the chunk
     * budget above (THUMBD_PNG_CHUNK_MALLOC_MAX): a larger profile is dropped with a warning. */
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    static const png_byte keep[] = {'e', 'X', 'I', 'f', '\0', 'i', 'C', 'C', 'P', '\0', 's', 'R', 'G', 'B', '\0',
                                    'g', 'A', 'M', 'A', '\0', 'c', 'H', 'R', 'M', '\0'};
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_AS_DEFAULT, keep, 5);
    return d;
}

void thumbd_png_decoder_destroy(thumbd_png_decoder *d) {
    if (d == NULL) return;
    png_destroy_read_struct(&d->png, &d->info, NULL);
    free(d);
}

const char *thumbd_png_decoder_message(const thumbd_png_decoder *d) {
    return d == NULL ? "no decoder" : d->message;
}

const char *thumbd_png_decoder_first_warning(const thumbd_png_decoder *d) {
    return d == NULL ? "" : d->first_warning;
}

size_t thumbd_png_decoder_peak_memory(const thumbd_png_decoder *d) {
    return d == NULL ? 0 : d->memory_peak;
}

thumbd_png_status thumbd_png_read_info(thumbd_png_decoder *d, thumbd_png_info *out) {
    if (d == NULL || out == NULL) return THUMBD_PNG_MISUSE;
    if (d->state != STATE_NEW) return misuse(d, "read_info called twice");
    d->message[0] = '\0';
    memset(out, 0, sizeof *out);

    if (setjmp(png_jmpbuf(d->png))) return fail(d);

    png_read_info(d->png, d->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    int has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;

    out->width = width;
    out->height = height;
    out->color_type = color_type;
    out->bit_depth = bit_depth;
    out->interlaced = interlace != PNG_INTERLACE_NONE;
    out->has_trns = has_trns;
    out->has_alpha = has_trns || (color_type & PNG_COLOR_MASK_ALPHA) != 0;

    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(d->png, d->info, &exif_length, &exif) != 0 && exif != NULL) {
        out->exif = exif;
        out->exif_length = exif_length;
    }
    png_charp icc_name = NULL;
    int icc_compression = 0;
    png_bytep icc = NULL;
    png_uint_32 icc_length = 0;
    if (png_get_iCCP(d->png, d->info, &icc_name, &icc_compression, &icc, &icc_length) != 0 && icc != NULL) {
        out->icc_profile = icc;
        out->icc_profile_length = icc_length;
    }
    int srgb_intent = 0;
    out->has_srgb = png_get_sRGB(d->png, d->info, &srgb_intent) != 0;
    png_fixed_point gamma = 0;
    if (png_get_gAMA_fixed(d->png, d->info, &gamma) != 0 && gamma > 0) out->gamma = gamma;
    png_fixed_point c[8] = {0};
    if (png_get_cHRM_fixed(d->png, d->info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]) != 0) {
        out->has_chromaticities = 1;
        for (int i = 0; i < 8; i++) out->chromaticities[i] = c[i];
    }
    out->warnings = d->warnings;

    d->width = width;
    d->height = height;
    d->interlaced = out->interlaced;
    d->state = STATE_INFO_READ;
    return THUMBD_PNG_OK;
}

thumbd_png_status thumbd_png_start_rgba8(thumbd_png_decoder *d, size_t *row_bytes) {
    if (d == NULL) return THUMBD_PNG_MISUSE;
    if (d->state != STATE_INFO_READ) return misuse(d, "start_rgba8 needs read_info first");
    d->message[0] = '\0';

    if (setjmp(png_jmpbuf(d->png))) return fail(d);

    png_structp png = d->png;
    png_infop info = d->info;
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    /* 1, 2 and 4-bit grey become 8-bit by bit replication (v * 255 / (2^depth - 1)). */
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    /* tRNS is matched against the stored samples (16-bit ones included) before 16 -> 8. */
    if (has_trns) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_strip_16(png); /* keep the high byte */
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !has_trns) png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER);
    if (d->interlaced) (void)png_set_interlace_handling(png);

    png_read_update_info(png, info);

    size_t produced = png_get_rowbytes(png, info);
    if (png_get_bit_depth(png, info) != 8 || png_get_channels(png, info) != 4 ||
        produced != (size_t)d->width * 4) {
        copy_message(d->message, sizeof d->message, "libpng did not produce 8-bit RGBA rows");
        d->state = STATE_FAILED;
        d->failure = THUMBD_PNG_CORRUPT;
        return THUMBD_PNG_CORRUPT;
    }
    if (row_bytes != NULL) *row_bytes = produced;
    d->state = STATE_STARTED;
    return THUMBD_PNG_OK;
}

thumbd_png_status thumbd_png_read_rows(thumbd_png_decoder *d, uint8_t *pixels, size_t stride, uint32_t count) {
    if (d == NULL || pixels == NULL) return THUMBD_PNG_MISUSE;
    if (d->state != STATE_STARTED) return misuse(d, "read_rows needs start_rgba8 first");
    if (d->interlaced) return misuse(d, "read_rows cannot read an interlaced image row by row");
    if (stride < (size_t)d->width * 4) return misuse(d, "row stride is smaller than width * 4");
    if (count > d->height - d->rows_read) return misuse(d, "read_rows asked for rows past the end");
    d->message[0] = '\0';

    if (setjmp(png_jmpbuf(d->png))) return fail(d);

    for (uint32_t i = 0; i < count; i++) {
        png_read_row(d->png, pixels + (size_t)i * stride, NULL);
        d->rows_read++;
    }
    if (d->rows_read == d->height) d->state = STATE_ROWS_DONE;
    return THUMBD_PNG_OK;
}

thumbd_png_status thumbd_png_read_image(thumbd_png_decoder *d, uint8_t *pixels, size_t stride) {
    if (d == NULL || pixels == NULL) return THUMBD_PNG_MISUSE;
    if (d->state != STATE_STARTED || d->rows_read != 0) return misuse(d, "read_image needs a freshly started decoder");
    if (stride < (size_t)d->width * 4) return misuse(d, "row stride is smaller than width * 4");
    d->message[0] = '\0';

    if (setjmp(png_jmpbuf(d->png))) return fail(d);

    /* Adam7: each pass writes only its own pixels into the full-size rows ("sparkle" mode), so
     * after the seventh pass every pixel is set. libpng skips rows a pass does not touch. */
    int passes = d->interlaced ? 7 : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < d->height; y++) {
            png_read_row(d->png, pixels + (size_t)y * stride, NULL);
        }
    }
    d->rows_read = d->height;
    d->state = STATE_ROWS_DONE;
    return THUMBD_PNG_OK;
}

thumbd_png_status thumbd_png_finish(thumbd_png_decoder *d) {
    if (d == NULL) return THUMBD_PNG_MISUSE;
    if (d->state != STATE_ROWS_DONE) return misuse(d, "finish needs every row read first");
    d->message[0] = '\0';

    if (setjmp(png_jmpbuf(d->png))) return fail(d);

    png_read_end(d->png, d->info);
    d->state = STATE_FINISHED;
    return THUMBD_PNG_OK;
}

/* --- encoding ---------------------------------------------------------------------------- */

struct sink {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    char message[256];
};

static void sink_write(png_structp png, png_bytep data, size_t count) {
    struct sink *s = (struct sink *)png_get_io_ptr(png);
    if (count > s->capacity - s->length) {
        size_t capacity = s->capacity < 4096 ? 4096 : s->capacity;
        while (capacity - s->length < count) {
            if (capacity > SIZE_MAX / 2) png_error(png, "encoded PNG too large");
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(s->bytes, capacity);
        if (grown == NULL) png_error(png, "out of memory growing the encoded PNG");
        s->bytes = grown;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->length, data, count);
    s->length += count;
}

static void sink_flush(png_structp png) { (void)png; }

static void sink_error(png_structp png, png_const_charp message) {
    struct sink *s = (struct sink *)png_get_error_ptr(png);
    copy_message(s->message, sizeof s->message, message);
    png_longjmp(png, 1);
}

static void sink_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

thumbd_png_status thumbd_png_encode_rgba8(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                                          int keep_alpha, uint8_t **out, size_t *out_length,
                                          char *message, size_t message_capacity) {
    if (message != NULL && message_capacity > 0) message[0] = '\0';
    if (pixels == NULL || out == NULL || out_length == NULL || width == 0 || height == 0 ||
        width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX || stride < (size_t)width * 4) {
        if (message != NULL) copy_message(message, message_capacity, "invalid image for PNG encoding");
        return THUMBD_PNG_MISUSE;
    }
    *out = NULL;
    *out_length = 0;

    /* Heap-allocated so nothing the longjmp path reads lives in a clobberable local. */
    struct sink *s = (struct sink *)calloc(1, sizeof *s);
    if (s == NULL) return THUMBD_PNG_NO_MEMORY;

    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, sink_error, sink_warning);
    if (png == NULL) {
        free(s);
        if (message != NULL) copy_message(message, message_capacity, "libpng could not start (out of memory)");
        return THUMBD_PNG_NO_MEMORY;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        free(s);
        if (message != NULL) copy_message(message, message_capacity, "libpng could not start (out of memory)");
        return THUMBD_PNG_NO_MEMORY;
    }

    if (setjmp(png_jmpbuf(png))) {
        if (message != NULL) copy_message(message, message_capacity, s->message);
        png_destroy_write_struct(&png, &info);
        free(s->bytes);
        free(s);
        return THUMBD_PNG_CORRUPT;
    }

    png_set_write_fn(png, s, sink_write, sink_flush);
    png_set_IHDR(png, info, width, height, 8, keep_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    /* On write, a filler drops the fourth byte of each pixel: RGBA rows go out as RGB. */
    if (!keep_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);

    *out = s->bytes;
    *out_length = s->length;
    free(s);
    return THUMBD_PNG_OK;
}

void thumbd_png_free(void *bytes) { free(bytes); }
