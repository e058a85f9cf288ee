/* SPDX-License-Identifier: MIT */
/* QR code encoder (ISO/IEC 18004:2015) and two renderers, as a pure library:
 * no allocation, no global state, no other kernel file. Byte mode only,
 * error correction L or M, versions 1-40, all 8 masks.
 *
 * Memory: the caller owns both buffers (in the kernel: static, 2 x 3917
 * bytes for version 40, or smaller for a smaller max_version). The encoder
 * itself needs about 350 bytes of stack (gcc -fstack-usage, x86_64 -O2:
 * qr_encode 200 > apply_mask 96 > is_function 48 > near_align_centre 8),
 * the renderers about 120 plus the callback's, so it can run on an AP's
 * 8 KiB stack. */
#ifndef QR_H
#define QR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QR_VERSION_MIN 1
#define QR_VERSION_MAX 40
/* Modules per side of version v (21 for version 1, 177 for version 40). */
#define QR_SIZE(v) (17 + 4 * (v))
/* Bytes each caller buffer needs for symbols up to version v: one bit per
 * module (the work buffer holds fewer codewords than that). */
#define QR_BUFFER_BYTES(v) ((QR_SIZE(v) * QR_SIZE(v) + 7) / 8)
#define QR_BUFFER_BYTES_MAX QR_BUFFER_BYTES(QR_VERSION_MAX)
/* The spec's quiet zone (ISO/IEC 18004:2015 section 6.3.8): 4 light
 * modules on every side. */
#define QR_QUIET_SPEC 4

enum qr_ecc {
	QR_ECC_L, /* recovers ~7% of codewords */
	QR_ECC_M, /* recovers ~15% */
};

#define QR_MASK_AUTO (-1)

enum qr_status {
	QR_OK = 0,
	QR_ERR_TOO_LONG,  /* data does not fit in max_version at this level */
	QR_ERR_ARG,       /* bad option (version, level, mask) or NULL pointer */
	QR_ERR_BUFFER,    /* a buffer is smaller than QR_BUFFER_BYTES(max_version) */
};

struct qr_options {
	enum qr_ecc ecc;
	int min_version; /* smallest version to use, 1..40 (1: as small as fits) */
	int max_version; /* largest version allowed, min_version..40 */
	int mask;        /* QR_MASK_AUTO (lowest penalty) or 0..7 (forced) */
};

/* A finished symbol. modules points into the caller's buffer. */
struct qr_code {
	int version;
	int size; /* QR_SIZE(version) */
	enum qr_ecc ecc;
	int mask;
	size_t data_len; /* bytes encoded */
	const uint8_t *modules; /* size*size bits, row-major, LSB first */
};

/* Encode len bytes of data in the smallest version in
 * [min_version, max_version] that holds them. modules and work are caller
 * buffers of at least QR_BUFFER_BYTES(max_version) bytes each; modules
 * holds the result (out->modules points to it), work is scratch. On error
 * *out is zeroed. */
enum qr_status qr_encode(const void *data, size_t len, const struct qr_options *opt,
			 uint8_t *modules, size_t modules_len,
			 uint8_t *work, size_t work_len, struct qr_code *out);

/* Message for a status, e.g. "data too long for the largest version allowed". */
const char *qr_strerror(enum qr_status st);

/* Bytes that fit in a version at a level in byte mode; 0 if the
 * arguments are out of range. */
size_t qr_capacity(int version, enum qr_ecc ecc);

/* Largest version whose symbol plus a quiet zone of quiet modules on each
 * side fits in max_modules modules; 0 if even version 1 does not fit. */
int qr_max_version_for_modules(int max_modules, int quiet);

/* Whether the module at column x, row y is dark (false outside the symbol,
 * so the quiet zone reads as light). */
bool qr_module(const struct qr_code *qr, int x, int y);

/* The mask-selection penalty of a finished symbol (ISO/IEC 18004:2015
 * section 7.8.3, N1=3 N2=3 N3=40 N4=10, evaluated over the whole symbol
 * including format and version information; the 1:1:3:1:1 rule counts each
 * 1011101 with four light modules before it and, separately, each with
 * four after it, inside the symbol). The automatic mask is the lowest
 * penalty, the lower mask number on a tie. */
long qr_penalty(const struct qr_code *qr);

/* Text renderer for the 80x25 VGA text screen: one module per column, two
 * module rows per character row, drawn with CP437 block characters (0xDB
 * full, 0xDF upper half, 0xDC lower half, space). put() is called once for
 * every cell of a qr_text_cols() x qr_text_rows() rectangle, (0,0) top left.
 * ink says which module colour the glyph's foreground shows: QR_INK_LIGHT
 * for light text on a dark background (e.g. VGA attribute 0x0F, bright
 * white on black: the best contrast VGA offers with blinking enabled),
 * QR_INK_DARK for dark text on a light background. A negative quiet zone
 * or a NULL symbol or callback draws nothing. */
#define QR_CP437_FULL 0xDB
#define QR_CP437_UPPER 0xDF
#define QR_CP437_LOWER 0xDC
#define QR_CP437_EMPTY 0x20

/* Quiet zone for the 25-row text screen: 2 modules, not the spec's 4.
 * 25 rows give 50 module rows: version 7 (45) fits with 2 (49 rows) but
 * would need 53 with 4, which leaves version 6 (41): 134 instead of 154
 * bytes at L. zbarimg decodes the 2-module zone as the VGA font draws it
 * (tests/qr; by hand it also read a 1-module zone, never a 0), and the
 * screen around the zone is black, not dark modules. 2 is the widest
 * zone that keeps version 7. The BIOS font's half blocks are 7 (0xDF)
 * and 9 (0xDC) dots of a 16-dot cell, so module rows alternate 7 and 9
 * pixels; the 9th dot column repeats the 8th for 0xC0-0xDF, so the
 * blocks join up. */
#define QR_QUIET_TEXT 2

enum qr_ink { QR_INK_LIGHT, QR_INK_DARK };

int qr_text_cols(const struct qr_code *qr, int quiet);
int qr_text_rows(const struct qr_code *qr, int quiet);
void qr_render_text(const struct qr_code *qr, int quiet, enum qr_ink ink,
		    void (*put)(void *ctx, int col, int row, uint8_t cp437), void *ctx);

/* Pixel renderer for a framebuffer: every module is a scale x scale square;
 * rect() receives runs of equal modules of one module row, quiet zone
 * included, in pixels relative to the top-left corner of the quiet zone,
 * dark or light. The whole (size + 2*quiet) * scale square is covered.
 * quiet < 0, scale < 1 or a NULL symbol or callback draws nothing. */
void qr_render_pixels(const struct qr_code *qr, int quiet, int scale,
		      void (*rect)(void *ctx, int x, int y, int w, int h, bool dark),
		      void *ctx);

#endif
