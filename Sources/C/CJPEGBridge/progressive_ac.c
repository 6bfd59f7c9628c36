#include "progressive_ac.h"

#include <pthread.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <jerror.h>
#include <jpegint.h>

/*
 * The rules followed where the data is bad, so that the coefficients are the ones libjpeg writes:
 * - a code no table holds reads as symbol 0 after 17 bits, with a warning;
 * - past a marker the data reads as zero bits; the first bit needed there warns and marks the
 *   entropy decoder short of data, and the blocks after it are left as they are until a restart;
 * - an index run past 63 writes coefficient 63 (jpeg_natural_order's 16 extra entries say so).
 */

static void build_table(thumbd_ac_table *table, const JHUFF_TBL *source) {
    memset(table->lookup, 0, sizeof table->lookup);
    memcpy(table->huffval, source->huffval, sizeof table->huffval);
    int symbol = 0;
    int32_t code = 0;
    for (int length = 1; length <= 16; length++) {
        int count = source->bits[length];
        table->maxcode[length] = -1;
        table->valoffset[length] = 0;
        if (count > 0) {
            table->valoffset[length] = symbol - code;
            for (int i = 0; i < count && symbol < 256; i++, symbol++, code++) {
                if (length > THUMBD_AC_LOOKAHEAD) continue;
                int shift = THUMBD_AC_LOOKAHEAD - length;
                int32_t first = code << shift, last = first + (1 << shift);
                if (last > (1 << THUMBD_AC_LOOKAHEAD)) continue; /* libjpeg refused such a table already */
                for (int32_t look = first; look < last; look++) {
                    table->lookup[look] = (uint16_t)((length << 8) | source->huffval[symbol]);
                }
            }
            table->maxcode[length] = code - 1;
        }
        code <<= 1;
    }
    table->maxcode[17] = INT32_MAX;
}

/* Hands the position back to libjpeg's source manager, and back again after it refills. */
static int reload(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    struct jpeg_source_mgr *source = cinfo->src;
    source->next_input_byte = s->next;
    source->bytes_in_buffer = s->left;
    if (!(*source->fill_input_buffer)(cinfo)) return 0;
    s->next = source->next_input_byte;
    s->left = source->bytes_in_buffer;
    return s->left > 0;
}

static int next_byte(j_decompress_ptr cinfo, thumbd_progressive_ac *s, unsigned int *byte) {
    if (s->left == 0 && !reload(cinfo, s)) return 0;
    *byte = *s->next++;
    s->left -= 1;
    return 1;
}

/* Up to 57 bits or the next marker, as libjpeg fills: 0xFF 0x00 is a 0xFF byte, fill bytes are
 * skipped, and any other marker is left for libjpeg's marker reader. */
static void refill(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    /* Whole bytes at once while none of them is 0xFF (a marker or a stuffed byte); the swap below
     * reads them in file order on a little-endian machine only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (s->left >= 8 && !s->at_marker) {
        uint64_t word;
        memcpy(&word, s->next, 8);
        uint64_t ff = ~word;
        if (((ff - 0x0101010101010101ull) & ~ff & 0x8080808080808080ull) == 0) {
            word = __builtin_bswap64(word);
            int take = (63 - s->bit_count) >> 3; /* at least 3: callers refill under 32 bits */
            s->bits |= (word >> (64 - take * 8)) << (64 - take * 8 - s->bit_count);
            s->bit_count += take * 8;
            s->next += take;
            s->left -= (size_t)take;
            return;
        }
    }
#endif
    while (s->bit_count <= 56 && !s->at_marker) {
        unsigned int byte;
        if (!next_byte(cinfo, s, &byte)) { s->at_marker = 1; return; }
        if (byte == 0xFF) {
            do {
                if (!next_byte(cinfo, s, &byte)) { s->at_marker = 1; return; }
            } while (byte == 0xFF);
            if (byte != 0) {
                cinfo->unread_marker = (int)byte;
                s->at_marker = 1;
                return;
            }
            byte = 0xFF;
        }
        s->bits |= (uint64_t)byte << (56 - s->bit_count);
        s->bit_count += 8;
    }
}

static void ran_out(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    s->bit_count = 0;
    if (!cinfo->entropy->insufficient_data) {
        WARNMS(cinfo, JWRN_HIT_MARKER);
        cinfo->entropy->insufficient_data = TRUE;
    }
}

/* At most 31 bits at once: the callers refill to 32 first, or read zeros past a marker. */
static inline void skip_bits(j_decompress_ptr cinfo, thumbd_progressive_ac *s, int count) {
    s->bits <<= count;
    s->bit_count -= count;
    if (s->bit_count < 0) ran_out(cinfo, s);
}

static inline unsigned int get_bits(j_decompress_ptr cinfo, thumbd_progressive_ac *s, int count) {
    unsigned int value = (unsigned int)(s->bits >> (64 - count));
    skip_bits(cinfo, s, count);
    return value;
}

static inline int get_bit(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    if (s->bit_count <= 0) refill(cinfo, s);
    return (int)get_bits(cinfo, s, 1);
}

static inline int decode_symbol(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    const thumbd_ac_table *table = &s->table;
    unsigned int entry = table->lookup[s->bits >> (64 - THUMBD_AC_LOOKAHEAD)];
    if (entry >> 8) {
        skip_bits(cinfo, s, (int)(entry >> 8));
        return (int)(entry & 0xFF);
    }
    int length = THUMBD_AC_LOOKAHEAD + 1;
    int32_t code = (int32_t)(s->bits >> (64 - length));
    while (code > table->maxcode[length] && length < 17) {
        length += 1;
        code = (int32_t)(s->bits >> (64 - length));
    }
    skip_bits(cinfo, s, length);
    if (length > 16) {
        WARNMS(cinfo, JWRN_HUFF_BAD_CODE);
        return 0;
    }
    return table->huffval[(code + table->valoffset[length]) & 0xFF];
}

static inline int extend(unsigned int value, int size) {
    int v = (int)value;
    return v < (1 << (size - 1)) ? v - (1 << size) + 1 : v;
}

/* An end-of-band symbol's run of blocks: 2^run, plus `run` more bits; this block is the first. */
static inline unsigned int eob_run_length(j_decompress_ptr cinfo, thumbd_progressive_ac *s, int run) {
    return (1u << run) + (run ? get_bits(cinfo, s, run) : 0);
}

static boolean restart(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    cinfo->marker->discarded_bytes += (unsigned int)(s->bit_count / 8);
    s->bits = 0;
    s->bit_count = 0;
    if (!(*cinfo->marker->read_restart_marker)(cinfo)) return FALSE;
    s->eob_run = 0;
    s->restarts_to_go = cinfo->restart_interval;
    s->at_marker = cinfo->unread_marker != 0;
    if (cinfo->unread_marker == 0) cinfo->entropy->insufficient_data = FALSE;
    return TRUE;
}

static void begin(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    s->next = cinfo->src->next_input_byte;
    s->left = cinfo->src->bytes_in_buffer;
}

static void end(j_decompress_ptr cinfo, thumbd_progressive_ac *s) {
    cinfo->src->next_input_byte = s->next;
    cinfo->src->bytes_in_buffer = s->left;
}

/* An AC scan's first pass: a band of one block's coefficients, or one block of an end-of-band run. */
static boolean decode_ac_first(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    thumbd_progressive_ac *s = thumbd_progressive_ac_state(cinfo);
    if (cinfo->restart_interval && s->restarts_to_go == 0 && !restart(cinfo, s)) return FALSE;
    if (!cinfo->entropy->insufficient_data) {
        if (s->eob_run > 0) {
            s->eob_run -= 1;
        } else {
            begin(cinfo, s);
            JCOEF *block = MCU_data[0][0];
            int last = cinfo->Se, shift = cinfo->Al;
            for (int k = cinfo->Ss; k <= last; k++) {
                if (s->bit_count < 32) refill(cinfo, s);
                int symbol = decode_symbol(cinfo, s);
                int run = symbol >> 4, size = symbol & 15;
                if (size) {
                    k += run;
                    int value = extend(get_bits(cinfo, s, size), size);
                    block[jpeg_natural_order[k]] = (JCOEF)(long)((unsigned long)(long)value << shift);
                } else if (run == 15) {
                    k += 15;
                } else {
                    s->eob_run = eob_run_length(cinfo, s, run) - 1;
                    break;
                }
            }
            end(cinfo, s);
        }
    }
    s->restarts_to_go -= 1;
    return TRUE;
}

/* Bit k says whether the coefficient at zigzag position k is nonzero: SSE2 finds them in natural
 * order, a table puts each byte's bits in zigzag order. A refinement scan walks these positions
 * block by block; testing each coefficient in a loop was the scan's cost (unpredictable branches). */
static uint64_t zigzag_bits[8][256];
static pthread_once_t zigzag_once = PTHREAD_ONCE_INIT;

static void build_zigzag_bits(void) {
    int zigzag_of[64];
    for (int k = 0; k < 64; k++) zigzag_of[jpeg_natural_order[k]] = k;
    for (int byte = 0; byte < 8; byte++) {
        for (int value = 0; value < 256; value++) {
            uint64_t bits = 0;
            for (int b = 0; b < 8; b++) {
                if (value & (1 << b)) bits |= 1ull << zigzag_of[byte * 8 + b];
            }
            zigzag_bits[byte][value] = bits;
        }
    }
}

static inline uint64_t nonzero_positions(const JCOEF *block) {
    uint64_t natural = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (int part = 0; part < 4; part++) {
        __m128i a = _mm_loadu_si128((const __m128i *)(block + part * 16));
        __m128i b = _mm_loadu_si128((const __m128i *)(block + part * 16 + 8));
        __m128i zeros = _mm_packs_epi16(_mm_cmpeq_epi16(a, zero), _mm_cmpeq_epi16(b, zero));
        natural |= (uint64_t)(uint16_t)~_mm_movemask_epi8(zeros) << (part * 16);
    }
#else
    for (int i = 0; i < 64; i++) natural |= (uint64_t)(block[i] != 0) << i;
#endif
    uint64_t zigzag = 0;
    for (int byte = 0; byte < 8; byte++) zigzag |= zigzag_bits[byte][(natural >> (byte * 8)) & 0xFF];
    return zigzag;
}

/* Positions first ... last (0 ... 63). */
static inline uint64_t band(int first, int last) {
    uint64_t upto = last >= 63 ? ~0ull : (2ull << last) - 1;
    return upto & (~0ull << first);
}

/* One correction bit for each nonzero coefficient in `positions`, in zigzag order: a 1 gives its
 * magnitude the scan's bit. */
static inline void refine(j_decompress_ptr cinfo, thumbd_progressive_ac *s, JCOEF *block, uint64_t positions,
                          int plus, int minus) {
    while (positions) {
        if (s->bit_count < 16) refill(cinfo, s);
        int used = 0;
        /* Without branches: a correction bit is a coin toss, and mispredicting it was the cost. */
        for (; used < 16 && positions; used++) {
            JCOEF *coefficient = block + jpeg_natural_order[__builtin_ctzll(positions)];
            positions &= positions - 1;
            int value = *coefficient;
            int grows = (int)((s->bits << used) >> 63) & ((value & plus) == 0);
            *coefficient = (JCOEF)(value + ((value >= 0 ? plus : minus) & -grows));
        }
        skip_bits(cinfo, s, used);
    }
}

/* An AC scan's refinement: one more bit of the coefficients already nonzero, and the new ones of
 * magnitude 1 between them. */
static boolean decode_ac_refine(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    thumbd_progressive_ac *s = thumbd_progressive_ac_state(cinfo);
    if (cinfo->restart_interval && s->restarts_to_go == 0 && !restart(cinfo, s)) return FALSE;
    if (!cinfo->entropy->insufficient_data) {
        begin(cinfo, s);
        JCOEF *block = MCU_data[0][0];
        int last = cinfo->Se;
        int plus = 1 << cinfo->Al, minus = -plus;
        int k = cinfo->Ss;
        /* Refinements never make a coefficient zero, and new ones land before k: what is nonzero
         * from k on stays as read here. */
        uint64_t nonzero = nonzero_positions(block);
        if (s->eob_run == 0) {
            for (; k <= last; k++) {
                if (s->bit_count < 32) refill(cinfo, s);
                int symbol = decode_symbol(cinfo, s);
                int run = symbol >> 4, size = symbol & 15;
                int value = 0;
                if (size) {
                    if (size != 1) WARNMS(cinfo, JWRN_HUFF_BAD_CODE);
                    value = get_bit(cinfo, s) ? plus : minus;
                } else if (run != 15) {
                    s->eob_run = eob_run_length(cinfo, s, run);
                    break;
                }
                /* Past `run` zeros, refining the nonzero ones on the way, to the zero after them
                 * (or past the band's end when it has too few). */
                uint64_t ahead = band(k, last);
                uint64_t zeros = ~nonzero & ahead;
                for (int skipped = 0; skipped < run && zeros; skipped++) zeros &= zeros - 1;
                int target = zeros ? __builtin_ctzll(zeros) : last + 1;
                uint64_t passed = zeros ? ahead & ((1ull << target) - 1) : ahead;
                refine(cinfo, s, block, nonzero & passed, plus, minus);
                k = target;
                if (value) block[jpeg_natural_order[k]] = (JCOEF)value;
            }
        }
        if (s->eob_run > 0) {
            if (k <= last) refine(cinfo, s, block, nonzero & band(k, last), plus, minus);
            s->eob_run -= 1;
        }
        end(cinfo, s);
    }
    s->restarts_to_go -= 1;
    return TRUE;
}

/* After libjpeg has checked the scan and built its tables: an AC scan is decoded here. */
static void start_pass(j_decompress_ptr cinfo) {
    thumbd_progressive_ac *s = thumbd_progressive_ac_state(cinfo);
    s->start_pass(cinfo);
    if (!s->enabled || cinfo->Ss == 0 || cinfo->comps_in_scan != 1 || cinfo->arith_code) return;
    const JHUFF_TBL *table = cinfo->ac_huff_tbl_ptrs[cinfo->cur_comp_info[0]->ac_tbl_no];
    if (table == NULL) return;
    build_table(&s->table, table);
    s->scans += 1;
    s->bits = 0;
    s->bit_count = 0;
    s->at_marker = cinfo->unread_marker != 0;
    s->eob_run = 0;
    s->restarts_to_go = cinfo->restart_interval;
    cinfo->entropy->decode_mcu = cinfo->Ah == 0 ? decode_ac_first : decode_ac_refine;
}

/* The entropy decoder exists from the second scan's SOS on, before that scan starts. */
static int read_markers(j_decompress_ptr cinfo) {
    thumbd_progressive_ac *s = thumbd_progressive_ac_state(cinfo);
    int result = s->read_markers(cinfo);
    if (result == JPEG_REACHED_SOS && s->enabled && cinfo->progressive_mode && !cinfo->arith_code
        && cinfo->entropy != NULL && cinfo->entropy->start_pass != start_pass) {
        s->start_pass = cinfo->entropy->start_pass;
        cinfo->entropy->start_pass = start_pass;
    }
    return result;
}

void thumbd_progressive_ac_install(j_decompress_ptr cinfo, thumbd_progressive_ac *state) {
    pthread_once(&zigzag_once, build_zigzag_bits);
    state->read_markers = cinfo->marker->read_markers;
    cinfo->marker->read_markers = read_markers;
}
