#include "jpeg_bridge.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct thumbd_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error_manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 32];
    thumbd_jpeg_warnings warnings;
    int started;
};

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

int thumbd_jpeg_decode(thumbd_jpeg_decoder *decoder, uint8_t *pixels, size_t row_bytes, size_t size) {
    if (setjmp(decoder->jump)) return -1;
    struct jpeg_decompress_struct *c = &decoder->cinfo;
    decoder->started = 1;
    jpeg_start_decompress(c);
    if (c->output_components != 4 || (size_t)c->output_width * 4 > row_bytes
        || row_bytes * c->output_height > size) {
        strcpy(decoder->message, "output buffer does not match the decoded size");
        return -1;
    }
    while (c->output_scanline < c->output_height) {
        JSAMPROW rows[4];
        int count = 0;
        for (; count < 4 && c->output_scanline + (JDIMENSION)count < c->output_height; count++) {
            rows[count] = pixels + row_bytes * (c->output_scanline + (JDIMENSION)count);
        }
        jpeg_read_scanlines(c, rows, (JDIMENSION)count);
    }
    jpeg_finish_decompress(c);
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
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}
