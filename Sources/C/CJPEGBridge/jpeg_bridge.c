#include "jpeg_bridge.h"
#include "progressive_ac.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include <jpegint.h>

/* One component's DC coefficients, caught as the inverse DCT reads each block. */
typedef struct {
    int32_t *dc;                  /* width x height blocks, dequantised */
    JDIMENSION width, height;
    int h_samp_factor, v_samp_factor; /* kept here: comp_info goes with jpeg_finish_decompress */
    long stored, misplaced;
    JDIMENSION row;               /* the iMCU row `base` belongs to */
    JSAMPARRAY base;              /* the first block row's output rows in that iMCU row */
    inverse_DCT_method_ptr idct;  /* libjpeg's own method, called after */
} block_capture;

struct thumbd_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error_manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 32];
    thumbd_jpeg_warnings warnings;
    int started;
    int capture_wanted;
    int captured;
    int captured_components;
    int captured_rgb;
    block_capture capture[3];
    int windowed;                 /* thumbd_jpeg_start_window started the decode */
    JDIMENSION window_top, window_rows;
    /* Catching DC coefficients in the entropy decoder (a window's decode): libjpeg's own method,
     * the MCUs decoded so far, and blocks for the MCUs libjpeg-turbo's skip decodes into nothing. */
    boolean (*decode_mcu)(j_decompress_ptr, JBLOCKROW *);
    JDIMENSION mcus_decoded;
    JBLOCK spare_blocks[D_MAX_BLOCKS_IN_MCU];
    JBLOCKROW spare_rows[D_MAX_BLOCKS_IN_MCU];
    thumbd_progressive_ac progressive;
};

thumbd_progressive_ac *thumbd_progressive_ac_state(j_decompress_ptr cinfo) {
    return &((thumbd_jpeg_decoder *)cinfo->client_data)->progressive;
}

static void on_error(j_common_ptr cinfo) {
    thumbd_jpeg_decoder *decoder = (thumbd_jpeg_decoder *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, decoder->message);
    longjmp(decoder->jump, 1);
}

/* Warnings (level -1) are counted, not printed; trace messages are dropped. */
static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    thumbd_jpeg_decoder *decoder = (thumbd_jpeg_decoder *)cinfo->client_data;
    decoder->warnings.count += 1;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) decoder->warnings.hit_end_of_data = 1;
    if (decoder->warnings.count == 1) (*cinfo->err->format_message)(cinfo, decoder->message);
}

static void silent(j_common_ptr cinfo) { (void)cinfo; }

/* Every component in one sequential scan (known from the header: it stops at the first scan). */
static int is_single_scan(const struct jpeg_decompress_struct *c) {
    return !c->progressive_mode && c->comps_in_scan == c->num_components;
}

thumbd_jpeg_decoder *thumbd_jpeg_open(const uint8_t *data, size_t size, long max_memory) {
    thumbd_jpeg_decoder *decoder = calloc(1, sizeof(thumbd_jpeg_decoder));
    if (!decoder) return NULL;
    decoder->cinfo.err = jpeg_std_error(&decoder->error_manager);
    decoder->error_manager.error_exit = on_error;
    decoder->error_manager.emit_message = on_message;
    decoder->error_manager.output_message = silent;
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.mem->max_memory_to_use = max_memory;
    jpeg_mem_src(&decoder->cinfo, data, (unsigned long)size);
    decoder->progressive.enabled = 1;
    thumbd_progressive_ac_install(&decoder->cinfo, &decoder->progressive);
    return decoder;
}

int thumbd_jpeg_read_header(thumbd_jpeg_decoder *decoder, thumbd_jpeg_header *header) {
    if (setjmp(decoder->jump)) return -1;
    jpeg_read_header(&decoder->cinfo, TRUE);
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    header->width = (int)c->image_width;
    header->height = (int)c->image_height;
    header->components = c->num_components;
    header->is_cmyk = c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK;
    header->saw_adobe_marker = c->saw_Adobe_marker;
    header->progressive = c->progressive_mode;
    header->single_scan = is_single_scan(c);
    return 0;
}

int thumbd_jpeg_output_size(thumbd_jpeg_decoder *decoder, int scale_num, int *width, int *height) {
    if (setjmp(decoder->jump)) return -1;
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    c->scale_num = (unsigned int)scale_num;
    c->scale_denom = 8;
    int cmyk = c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK;
    c->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_calc_output_dimensions(c);
    *width = (int)c->output_width;
    *height = (int)c->output_height;
    return 0;
}

int thumbd_jpeg_set_block_smoothing(thumbd_jpeg_decoder *decoder, int on) {
    decoder->cinfo.do_block_smoothing = on ? TRUE : FALSE;
    return 0;
}

int thumbd_jpeg_set_own_ac_decoder(thumbd_jpeg_decoder *decoder, int on) {
    decoder->progressive.enabled = on ? 1 : 0;
    return 0;
}

int thumbd_jpeg_own_ac_scans(const thumbd_jpeg_decoder *decoder) {
    return decoder->progressive.scans;
}

int thumbd_jpeg_capture_block_means(thumbd_jpeg_decoder *decoder) {
    decoder->capture_wanted = 1;
    return 0;
}

/*
 * Stands in for libjpeg's inverse DCT of one component: notes the block's DC coefficient, then
 * hands the block on unchanged. The block's place comes from what the coefficient controllers
 * pass (libjpeg 6b's interface, kept by libjpeg-turbo): the output column in scaled samples, and
 * the output rows, whose first block row in an iMCU row is always the first one passed.
 * A place outside the grid, or one already caught, is counted, never written, and voids the capture.
 */
/* No block's DC can be this: at most 2,047 x 65,535 in magnitude. */
#define NOT_CAUGHT INT32_MIN

/* Notes block (x, y)'s dequantised DC; a place outside the grid, or one already caught, is
 * counted, never written, and voids the capture. */
static void store_dc(block_capture *capture, JDIMENSION x, JDIMENSION y, int32_t dc) {
    int32_t *slot = x < capture->width && y < capture->height ? &capture->dc[(size_t)y * capture->width + x] : NULL;
    if (slot != NULL && *slot == NOT_CAUGHT) {
        *slot = dc;
        capture->stored += 1;
    } else {
        capture->misplaced += 1;
    }
}

/*
 * Stands in for libjpeg's inverse DCT of one component: notes the block's DC coefficient, then
 * hands the block on unchanged. The block's place comes from what the coefficient controllers
 * pass (libjpeg 6b's interface, kept by libjpeg-turbo): the output column in scaled samples, and
 * the output rows, whose first block row in an iMCU row is always the first one passed.
 */
static void capture_dc(j_decompress_ptr cinfo, jpeg_component_info *compptr, JCOEFPTR coef_block,
                       JSAMPARRAY output_buf, JDIMENSION output_col) {
    thumbd_jpeg_decoder *decoder = (thumbd_jpeg_decoder *)cinfo->client_data;
    block_capture *capture = &decoder->capture[compptr->component_index];
    if (capture->base == NULL || capture->row != cinfo->output_iMCU_row) {
        capture->row = cinfo->output_iMCU_row;
        capture->base = output_buf;
    }
    ptrdiff_t offset = output_buf - capture->base;
    int size = compptr->DCT_scaled_size;
    if (size > 0 && offset >= 0 && offset % size == 0 && compptr->quant_table != NULL) {
        JDIMENSION x = output_col / (JDIMENSION)size;
        JDIMENSION y = capture->row * (JDIMENSION)compptr->v_samp_factor + (JDIMENSION)(offset / size);
        store_dc(capture, x, y, (int32_t)coef_block[0] * (int32_t)compptr->quant_table->quantval[0]);
    } else {
        capture->misplaced += 1;
    }
    capture->idct(cinfo, compptr, coef_block, output_buf, output_col);
}

/*
 * Stands in for the entropy decoder of a single-scan file: decodes one MCU with libjpeg's own
 * method, then notes the DC coefficient of each of its blocks. A window's decode runs the inverse
 * DCT for its own blocks only, but every MCU of the scan passes here once, in raster order, the
 * skipped rows too (libjpeg-turbo passes no buffer for those: the spare blocks stand in, their DC
 * cleared first as libjpeg clears its own, so a block left undecoded after bad data reads 0).
 * An interleaved scan's MCUs are whole at the right and bottom edges: blocks past the component's
 * grid are padding, not captured.
 */
static boolean capture_mcu_dc(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    thumbd_jpeg_decoder *decoder = (thumbd_jpeg_decoder *)cinfo->client_data;
    JBLOCKROW *blocks = MCU_data;
    if (blocks == NULL) {
        for (int b = 0; b < cinfo->blocks_in_MCU; b++) decoder->spare_blocks[b][0] = 0;
        blocks = decoder->spare_rows;
    }
    if (!decoder->decode_mcu(cinfo, blocks)) return FALSE;
    JDIMENSION column = decoder->mcus_decoded % cinfo->MCUs_per_row;
    JDIMENSION row = decoder->mcus_decoded / cinfo->MCUs_per_row;
    decoder->mcus_decoded += 1;
    int b = 0;
    for (int ci = 0; ci < cinfo->comps_in_scan; ci++) {
        jpeg_component_info *component = cinfo->cur_comp_info[ci];
        block_capture *capture = &decoder->capture[component->component_index];
        int32_t quant = component->quant_table != NULL ? (int32_t)component->quant_table->quantval[0] : 0;
        for (int by = 0; by < component->MCU_height; by++) {
            for (int bx = 0; bx < component->MCU_width; bx++, b++) {
                JDIMENSION x = column * (JDIMENSION)component->MCU_width + (JDIMENSION)bx;
                JDIMENSION y = row * (JDIMENSION)component->MCU_height + (JDIMENSION)by;
                if (quant == 0) { capture->misplaced += 1; continue; }
                if (cinfo->comps_in_scan > 1 && (x >= capture->width || y >= capture->height)) continue;
                store_dc(capture, x, y, (int32_t)blocks[b][0][0] * quant);
            }
        }
    }
    return TRUE;
}

/* After jpeg_start_decompress has chosen each component's inverse DCT (and, for a single scan,
 * started its entropy decoder), and before any block: in the entropy decoder when `in_entropy`. */
static void start_capture(thumbd_jpeg_decoder *decoder, int in_entropy) {
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    int supported = (c->num_components == 1 && c->jpeg_color_space == JCS_GRAYSCALE)
        || (c->num_components == 3 && (c->jpeg_color_space == JCS_YCbCr || c->jpeg_color_space == JCS_RGB));
    if (!decoder->capture_wanted || !supported || c->idct == NULL) return;
    if (in_entropy && (c->inputctl->has_multiple_scans || c->entropy == NULL || c->entropy->decode_mcu == NULL
                       || c->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU)) return;
    for (int ci = 0; ci < c->num_components; ci++) {
        jpeg_component_info *component = &c->comp_info[ci];
        block_capture *capture = &decoder->capture[ci];
        capture->width = component->width_in_blocks;
        capture->height = component->height_in_blocks;
        capture->h_samp_factor = component->h_samp_factor;
        capture->v_samp_factor = component->v_samp_factor;
        size_t blocks = (size_t)capture->width * capture->height;
        capture->dc = (int32_t *)malloc(blocks * sizeof(int32_t));
        capture->idct = c->idct->inverse_DCT[ci];
        if (capture->dc == NULL || capture->idct == NULL) return;
        for (size_t i = 0; i < blocks; i++) capture->dc[i] = NOT_CAUGHT;
    }
    if (in_entropy) {
        for (int b = 0; b < D_MAX_BLOCKS_IN_MCU; b++) decoder->spare_rows[b] = &decoder->spare_blocks[b];
        decoder->decode_mcu = c->entropy->decode_mcu;
        c->entropy->decode_mcu = capture_mcu_dc;
    } else {
        for (int ci = 0; ci < c->num_components; ci++) c->idct->inverse_DCT[ci] = capture_dc;
    }
    decoder->captured = 1;
    decoder->captured_components = c->num_components;
    decoder->captured_rgb = c->jpeg_color_space == JCS_RGB;
}

/* Whether every block of every component was caught exactly once (none twice, so a full count is all of them). */
static void finish_capture(thumbd_jpeg_decoder *decoder) {
    if (!decoder->captured) return;
    for (int ci = 0; ci < decoder->captured_components; ci++) {
        block_capture *capture = &decoder->capture[ci];
        if (capture->misplaced != 0 || capture->stored != (long)capture->width * (long)capture->height) {
            decoder->captured = 0;
        }
    }
}

const int32_t *thumbd_jpeg_block_dc(const thumbd_jpeg_decoder *decoder, int component, thumbd_jpeg_block_grid *grid) {
    if (!decoder->captured || component < 0 || component >= decoder->captured_components) return NULL;
    const block_capture *capture = &decoder->capture[component];
    grid->width = (int)capture->width;
    grid->height = (int)capture->height;
    grid->h_samp_factor = capture->h_samp_factor;
    grid->v_samp_factor = capture->v_samp_factor;
    grid->components = decoder->captured_components;
    grid->is_rgb = decoder->captured_rgb;
    return capture->dc;
}

int thumbd_jpeg_start_window(thumbd_jpeg_decoder *decoder, int *x, int y, int *width, int height) {
    if (setjmp(decoder->jump)) return -1;
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    if (decoder->started || (decoder->capture_wanted && !is_single_scan(c)) || *x < 0 || y < 0 || *width <= 0 || height <= 0) {
        strcpy(decoder->message, "a window needs a fresh decoder, and block means a single-scan file");
        return -1;
    }
    decoder->started = 1;
    jpeg_start_decompress(c);
    /* Before the skip below, which entropy-decodes the rows above the window. */
    start_capture(decoder, 1);
    if ((JDIMENSION)*x + (JDIMENSION)*width > c->output_width || (JDIMENSION)y + (JDIMENSION)height > c->output_height) {
        strcpy(decoder->message, "the window is outside the decoded image");
        return -1;
    }
    JDIMENSION left = (JDIMENSION)*x, columns = (JDIMENSION)*width;
    jpeg_crop_scanline(c, &left, &columns);
    *x = (int)left;
    *width = (int)columns;
    if (y > 0) jpeg_skip_scanlines(c, (JDIMENSION)y);
    decoder->windowed = 1;
    decoder->window_top = (JDIMENSION)y;
    decoder->window_rows = (JDIMENSION)height;
    return 0;
}

int thumbd_jpeg_decode(thumbd_jpeg_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t size) {
    if (setjmp(decoder->jump)) return -1;
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    if (!decoder->started) {
        decoder->started = 1;
        jpeg_start_decompress(c);
        start_capture(decoder, 0);
    }
    JDIMENSION top = decoder->windowed ? decoder->window_top : 0;
    JDIMENSION end = decoder->windowed ? top + decoder->window_rows : c->output_height;
    if (c->output_components != 4 || (size_t)c->output_width * 4 > row_bytes
        || row_bytes * (end - top) > size || c->output_scanline != top) {
        strcpy(decoder->message, "output buffer does not match the decoded size");
        return -1;
    }
    while (c->output_scanline < end) {
        JSAMPROW rows[4];
        int count = 0;
        for (; count < 4 && c->output_scanline + (JDIMENSION)count < end; count++) {
            rows[count] = pixels + row_bytes * (c->output_scanline - top + (JDIMENSION)count);
        }
        jpeg_read_scanlines(c, rows, (JDIMENSION)count);
    }
    /* The rows under the window are still entropy-decoded (all skipped but the last, which is read):
     * a skip to the very end would not read them, and a scan cut short there would go unseen where
     * the whole decode refuses the file. */
    if (c->output_scanline < c->output_height) {
        JDIMENSION rest = c->output_height - c->output_scanline;
        if (rest > 1) jpeg_skip_scanlines(c, rest - 1);
        JSAMPARRAY last = (*c->mem->alloc_sarray)((j_common_ptr)c, JPOOL_IMAGE, c->output_width * 4, 1);
        while (c->output_scanline < c->output_height) jpeg_read_scanlines(c, last, 1);
    }
    jpeg_finish_decompress(c);
    finish_capture(decoder);
    return 0;
}

thumbd_jpeg_warnings thumbd_jpeg_warning_state(const thumbd_jpeg_decoder *decoder) {
    return decoder->warnings;
}

const char *thumbd_jpeg_message(const thumbd_jpeg_decoder *decoder) {
    return decoder->message;
}

void thumbd_jpeg_close(thumbd_jpeg_decoder *decoder) {
    if (!decoder) return;
    for (int ci = 0; ci < 3; ci++) free(decoder->capture[ci].dc);
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}
