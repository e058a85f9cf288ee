/* SPDX-License-Identifier: MIT */
/* Host driver for wings/screen/qr.c, used by tests/qr/check.py:
 *
 *   qrtool batch
 *       stdin, one case a line: ECC(L|M) MIN_V MAX_V MASK(-1..7) HEX|-
 *       stdout, one line a case: "ok VERSION MASK PENALTY BITS" (BITS: the
 *       modules row by row, 1 = dark) or "err STATUS".
 *   qrtool text FONT OUT.pbm ECC QUIET HEX
 *       The symbol on an 80x25 VGA text screen (largest version that fits
 *       the 25 rows with QUIET), light ink on black, a few lines of text
 *       beside it, rasterised 720x400 as VGA draws 9x16 cells with the
 *       BIOS font read from FONT (a SeaBIOS VGA ROM image).
 *   qrtool fb WIDTH HEIGHT SCALE OUT.pbm ECC HEX
 *       The symbol drawn SCALE pixels per module with the spec's quiet
 *       zone on a black WIDTHxHEIGHT framebuffer, right-aligned.
 * text and fb print "VERSION MASK CAPACITY" of the symbol drawn. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wings/screen/qr.h"
#include "tests/iso/vgafont.h"

static uint8_t modules[QR_BUFFER_BYTES_MAX], work[QR_BUFFER_BYTES_MAX];

static void die(const char *msg, const char *arg) __attribute__((noreturn));
static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "qrtool: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static int parse_int(const char *s, int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		die("number out of range", s);
	return (int)v;
}

static enum qr_ecc parse_ecc(const char *s)
{
	if (!strcmp(s, "L"))
		return QR_ECC_L;
	if (!strcmp(s, "M"))
		return QR_ECC_M;
	die("level must be L or M", s);
}

/* Hex to bytes in place of a static buffer; "-" is empty. */
static size_t parse_hex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (!strcmp(s, "-"))
		return 0;
	for (; s[0] && s[1]; s += 2) {
		unsigned b;

		if (n == cap || sscanf(s, "%2x", &b) != 1)
			die("bad or too long hex payload", NULL);
		out[n++] = (uint8_t)b;
	}
	if (*s)
		die("odd hex length", NULL);
	return n;
}

static const char *status_name(enum qr_status st)
{
	switch (st) {
	case QR_OK: return "ok";
	case QR_ERR_TOO_LONG: return "too_long";
	case QR_ERR_ARG: return "arg";
	case QR_ERR_BUFFER: return "buffer";
	}
	return "?";
}

static int cmd_batch(void)
{
	static char line[16384];
	static uint8_t data[4096];

	while (fgets(line, sizeof line, stdin)) {
		char ecc[4], hex[sizeof line];
		int minv, maxv, mask;
		struct qr_options opt;
		struct qr_code qr;
		enum qr_status st;
		size_t len;

		if (sscanf(line, "%3s %d %d %d %s", ecc, &minv, &maxv, &mask, hex) != 5)
			die("bad batch line", line);
		len = parse_hex(hex, data, sizeof data);
		opt.ecc = parse_ecc(ecc);
		opt.min_version = minv;
		opt.max_version = maxv;
		opt.mask = mask;
		st = qr_encode(data, len, &opt, modules, sizeof modules, work, sizeof work, &qr);
		if (st != QR_OK) {
			printf("err %s\n", status_name(st));
			continue;
		}
		printf("ok %d %d %ld ", qr.version, qr.mask, qr_penalty(&qr));
		for (int y = 0; y < qr.size; y++)
			for (int x = 0; x < qr.size; x++)
				putchar(qr_module(&qr, x, y) ? '1' : '0');
		putchar('\n');
	}
	return 0;
}

/* 1 bit per pixel, true = black; written as PBM (P4). */
struct bitmap {
	int w, h;
	bool *px;
};

static struct bitmap bitmap_new(int w, int h)
{
	struct bitmap b = { w, h, calloc((size_t)w * (size_t)h, sizeof(bool)) };

	if (!b.px)
		die("out of memory", NULL);
	for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
		b.px[i] = true;
	return b;
}

static void bitmap_write(const struct bitmap *b, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die("cannot write", path);
	fprintf(f, "P4\n%d %d\n", b->w, b->h);
	for (int y = 0; y < b->h; y++)
		for (int x = 0; x < b->w; x += 8) {
			unsigned byte = 0;

			for (int i = 0; i < 8; i++)
				if (x + i < b->w && b->px[(size_t)y * b->w + x + i])
					byte |= 0x80u >> i;
			fputc((int)byte, f);
		}
	if (fclose(f))
		die("cannot write", path);
}

static void encode_or_die(const uint8_t *data, size_t len, enum qr_ecc ecc, int max_version,
			  struct qr_code *qr)
{
	struct qr_options opt = { ecc, 1, max_version, QR_MASK_AUTO };
	enum qr_status st;

	if (max_version < 1)
		die("no version fits", NULL);
	st = qr_encode(data, len, &opt, modules, sizeof modules, work, sizeof work, qr);
	if (st != QR_OK)
		die(qr_strerror(st), NULL);
}

/* --- VGA text screen ---------------------------------------------------- */

#define COLS 80
#define ROWS 25
#define CELL_W 9 /* 720x400: 9-dot characters, as the BIOS sets mode 3 */
#define CELL_H 16

static uint8_t screen[ROWS][COLS];
static int qr_col0;

static void put_cell(void *ctx, int col, int row, uint8_t ch)
{
	(void)ctx;
	if (qr_col0 + col >= COLS || row >= ROWS)
		die("text render outside the screen", NULL);
	screen[row][qr_col0 + col] = ch;
}

static const uint8_t *load_font(const char *path)
{
	const char *why;
	const uint8_t *font = vga_rom_font(path, &why);
	if (!font)
		die(why, path);
	return font;
}

static int cmd_text(char **argv)
{
	const uint8_t *font = load_font(argv[0]);
	enum qr_ecc ecc = parse_ecc(argv[2]);
	int quiet = parse_int(argv[3], 0, 10);
	static uint8_t data[4096];
	size_t len = parse_hex(argv[4], data, sizeof data);
	static const char *side[] = {
		"apstart 0.1   WBINVD=0", "park=linux  bringup=serial", "8 CPUs  firmware=bios",
		"", "          Offline    Online", "Total     1.234 ms   5.678 ms",
		"", "Scan the code: it holds", "the @boot/@summary records.",
	};
	struct qr_code qr;
	struct bitmap bm = bitmap_new(COLS * CELL_W, ROWS * CELL_H);

	/* 80 columns x 25 rows = 80 x 50 modules. */
	encode_or_die(data, len, ecc, qr_max_version_for_modules(ROWS * 2 < COLS ? ROWS * 2 : COLS,
								 quiet), &qr);
	memset(screen, ' ', sizeof screen);
	for (size_t r = 0; r < sizeof side / sizeof side[0]; r++)
		memcpy(&screen[r][0], side[r], strlen(side[r]));
	qr_col0 = COLS - qr_text_cols(&qr, quiet);
	qr_render_text(&qr, quiet, QR_INK_LIGHT, put_cell, NULL);

	for (int row = 0; row < ROWS; row++)
		for (int col = 0; col < COLS; col++) {
			uint8_t ch = screen[row][col];

			for (int y = 0; y < CELL_H; y++) {
				uint8_t bits = font[ch * 16 + y];

				for (int x = 0; x < CELL_W; x++) {
					/* The 9th dot repeats the 8th for the line
					 * graphics 0xC0-0xDF (attribute controller
					 * mode bit "line graphics enable", set in
					 * mode 3), else it is background. */
					bool ink = x < 8 ? (bits >> (7 - x)) & 1
							 : (ch >= 0xC0 && ch <= 0xDF && (bits & 1));

					/* Light ink (white) on black. */
					bm.px[(size_t)(row * CELL_H + y) * bm.w + col * CELL_W + x] = !ink;
				}
			}
		}
	bitmap_write(&bm, argv[1]);
	printf("%d %d %zu\n", qr.version, qr.mask, qr_capacity(qr.version, ecc));
	free(bm.px);
	return 0;
}

/* --- Framebuffer ----------------------------------------------------------- */

struct fb_target {
	struct bitmap *bm;
	int x0, y0;
	long covered; /* pixels drawn, to catch gaps and overlaps */
};

static void put_rect(void *ctx, int x, int y, int w, int h, bool dark)
{
	struct fb_target *t = ctx;

	if (w <= 0 || h <= 0 || t->x0 + x < 0 || t->y0 + y < 0 || t->x0 + x + w > t->bm->w ||
	    t->y0 + y + h > t->bm->h)
		die("rectangle outside the framebuffer", NULL);
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++)
			t->bm->px[(size_t)(t->y0 + y + j) * t->bm->w + t->x0 + x + i] = dark;
	t->covered += (long)w * h;
}

static int cmd_fb(char **argv)
{
	int w = parse_int(argv[0], 1, 8192), h = parse_int(argv[1], 1, 8192);
	int scale = parse_int(argv[2], 1, 64);
	enum qr_ecc ecc = parse_ecc(argv[4]);
	static uint8_t data[4096];
	size_t len = parse_hex(argv[5], data, sizeof data);
	struct bitmap bm = bitmap_new(w, h);
	int fit = (w < h ? w : h) / scale;
	struct qr_code qr;
	struct fb_target t;
	long span;

	encode_or_die(data, len, ecc, qr_max_version_for_modules(fit, QR_QUIET_SPEC), &qr);
	span = (long)(qr.size + 2 * QR_QUIET_SPEC) * scale;
	t.bm = &bm;
	t.x0 = w - (int)span;
	t.y0 = (h - (int)span) / 2;
	t.covered = 0;
	qr_render_pixels(&qr, QR_QUIET_SPEC, scale, put_rect, &t);
	if (t.covered != span * span)
		die("pixel renderer did not cover its square exactly", NULL);
	bitmap_write(&bm, argv[3]);
	printf("%d %d %zu\n", qr.version, qr.mask, qr_capacity(qr.version, ecc));
	free(bm.px);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "batch"))
		return cmd_batch();
	if (argc == 7 && !strcmp(argv[1], "text"))
		return cmd_text(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "fb"))
		return cmd_fb(argv + 2);
	fprintf(stderr, "usage: qrtool batch | text FONT OUT.pbm L|M QUIET HEX |"
			" fb W H SCALE OUT.pbm L|M HEX\n");
	return 2;
}
