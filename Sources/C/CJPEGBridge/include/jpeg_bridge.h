#ifndef THUMBD_JPEG_BRIDGE_H
#define THUMBD_JPEG_BRIDGE_H
/*
 * libjpeg-turbo's libjpeg API, with its longjmp error handling kept inside C.
 * Every function returns 0 on success or -1 with a message in the handle; after -1 only
 * thumbd_jpeg_close may be called. Swift never sees a longjmp.
 */
#include <stddef.h>
#include <stdint.h>

typedef struct thumbd_jpeg_decoder thumbd_jpeg_decoder;

typedef struct {
    int width;
    int height;
    int components;
    int is_cmyk;          /* CMYK or YCCK: decoded as CMYK, converted by the caller */
    int saw_adobe_marker; /* Adobe CMYK is stored inverted */
    int progressive;
    int single_scan;      /* every component in one sequential scan: blocks are entropy-decoded in
                             order, once each, as the output rows are read */
} thumbd_jpeg_header;

typedef struct {
    int count;            /* warnings emitted so far */
    int hit_end_of_data;  /* libjpeg ran out of bytes and inserted a fake EOI */
} thumbd_jpeg_warnings;

/* Reads the header; `max_memory` bounds libjpeg's own allocations (coefficient buffers included). */
thumbd_jpeg_decoder *thumbd_jpeg_open(const uint8_t *data, size_t size, long max_memory);
int thumbd_jpeg_read_header(thumbd_jpeg_decoder *decoder, thumbd_jpeg_header *header);
/* Output size when decoding at scale num/8 (num 1...16). Allocates nothing. */
int thumbd_jpeg_output_size(thumbd_jpeg_decoder *decoder, int scale_num, int *width, int *height);
/* Block smoothing guesses the AC coefficients a progressive file has not sent yet (libjpeg's default:
 * on). Off for a stream cut to its DC scans on purpose. */
int thumbd_jpeg_set_block_smoothing(thumbd_jpeg_decoder *decoder, int on);
/* Decodes every row into `pixels` (4 bytes a pixel: RGBA, or CMYK for CMYK images); after
 * thumbd_jpeg_start_window, the window's rows only, each `width` pixels wide. */
int thumbd_jpeg_decode(thumbd_jpeg_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t size);
/* Starts a decode of the output pixels x ..< x + width, y ..< y + height only (in the scaled output,
 * after thumbd_jpeg_output_size): libjpeg-turbo still reads every entropy-coded block (the format
 * is sequential) but runs the inverse DCT, upsampling and colour conversion for the window's
 * columns alone, and skips the rows around it. libjpeg widens the columns to whole iMCUs: `*x` and
 * `*width` come back as it set them. With thumbd_jpeg_capture_block_means only for a single-scan
 * file: the DC coefficients are then caught in the entropy decoder, which reads every block. */
int thumbd_jpeg_start_window(thumbd_jpeg_decoder *decoder, int *x, int y, int *width, int height);
/* Asks the next decode to keep every block's DC coefficient (dequantised) as libjpeg's inverse DCT
 * reads it (or, in a window, as its entropy decoder does), for 1-component greyscale and 3-component
 * YCbCr or RGB files: the same values whatever the output scale, since every scale's IDCT starts
 * from the same coefficients. */
int thumbd_jpeg_capture_block_means(thumbd_jpeg_decoder *decoder);
/* The AC scans of a Huffman-coded progressive file are entropy-decoded by thumbd's own decoder
 * (progressive_ac.c: the coefficients libjpeg's would write, bad data included, with fewer
 * branches) unless this turns it off, which only tests do, to compare. On by default; set it
 * before the decode starts. */
int thumbd_jpeg_set_own_ac_decoder(thumbd_jpeg_decoder *decoder, int on);
/* How many scans that decoder has decoded so far. */
int thumbd_jpeg_own_ac_scans(const thumbd_jpeg_decoder *decoder);

typedef struct {
    int width;            /* blocks across */
    int height;           /* blocks down */
    int h_samp_factor;
    int v_samp_factor;
    int components;
    int is_rgb;           /* components are R, G, B, not Y, Cb, Cr */
} thumbd_jpeg_block_grid;

/* After a decode that captured them, component `component`'s DC coefficients, row-major, valid until
 * thumbd_jpeg_close; NULL when none were captured (not asked, another colour space, or a block
 * that could not be placed). */
const int32_t *thumbd_jpeg_block_dc(const thumbd_jpeg_decoder *decoder, int component, thumbd_jpeg_block_grid *grid);
thumbd_jpeg_warnings thumbd_jpeg_warning_state(const thumbd_jpeg_decoder *decoder);
const char *thumbd_jpeg_message(const thumbd_jpeg_decoder *decoder);
void thumbd_jpeg_close(thumbd_jpeg_decoder *decoder);

#endif
