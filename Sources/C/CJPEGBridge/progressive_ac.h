#ifndef THUMBD_PROGRESSIVE_AC_H
#define THUMBD_PROGRESSIVE_AC_H
/*
 * The entropy decoder for the AC scans of a progressive JPEG, put in libjpeg-turbo's place scan by
 * scan. Most of a progressive photo's decode is these scans; libjpeg-turbo 2.1 refines a band by
 * testing each coefficient of each block in a loop of unpredictable branches, and refills its bits
 * through a function, a byte at a time. Here a block's nonzero coefficients are found at once (SSE2
 * and a table), the correction bits are taken 16 at a time, and bits come 7 bytes at a time where
 * no 0xFF is among them. libjpeg keeps all the rest: the markers, each scan's checks and tables, the
 * DC scans, the coefficient buffer, and the inverse DCT; the coefficients written are the ones its
 * own decoder writes, bad data included (JPEGProgressiveACTests).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <jpeglib.h>

#define THUMBD_AC_LOOKAHEAD 10

typedef struct {
    /* (code length << 8) | symbol for every code of at most THUMBD_AC_LOOKAHEAD bits; 0 for longer */
    uint16_t lookup[1 << THUMBD_AC_LOOKAHEAD];
    int32_t maxcode[18];   /* the largest code of each length, -1 for none; [17] ends the search */
    int32_t valoffset[17]; /* a code of length l is symbol huffval[code + valoffset[l]] */
    uint8_t huffval[256];
} thumbd_ac_table;

typedef struct {
    int enabled;
    int scans;             /* AC scans decoded here */
    /* libjpeg's own methods, called first */
    int (*read_markers)(j_decompress_ptr);
    void (*start_pass)(j_decompress_ptr);
    /* the scan's state */
    uint64_t bits;         /* unread bits, most significant first; zeros under them */
    int bit_count;         /* how many of them came from the file */
    int at_marker;         /* a marker ended the data: only zeros follow */
    unsigned int eob_run;
    const JOCTET *next;    /* libjpeg's source position, held here while a block is decoded */
    size_t left;
    unsigned int restarts_to_go;
    thumbd_ac_table table;
} thumbd_progressive_ac;

/* Call after jpeg_create_decompress: every later AC scan of a Huffman-coded progressive file is then
 * decoded here, when `state->enabled`. For one image per decompressor, as the bridge opens one each:
 * after jpeg_abort or jpeg_finish_decompress, cinfo->entropy points at freed memory that the marker
 * hook would read at the next image's SOS. A source that suspends (fill_input_buffer returning FALSE;
 * jpeg_mem_src never does) reads as the end of the data, where libjpeg would suspend and retry. */
void thumbd_progressive_ac_install(j_decompress_ptr cinfo, thumbd_progressive_ac *state);
/* Defined by the bridge: the state installed on this decompressor. */
thumbd_progressive_ac *thumbd_progressive_ac_state(j_decompress_ptr cinfo);

#endif
