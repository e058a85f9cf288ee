/* SPDX-License-Identifier: MIT */
/* Host tests for wings/screen/fbcon.c: renders into malloc'ed framebuffers of
 * several formats and odd pitches and checks every pixel it can reason
 * about, plus the bytes around the visible area. With arguments
 * MKFONT PF2 it also checks that tools/build/mkfont rejects broken fonts.
 * Must run first in its process: the console's state is global. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wings/screen/fbcon.h"

#define SENTINEL 0xA5
#define GUARD 64

/* Assertions; cases group them (case_end) for the test protocol. */
static int passed, failed;
static int cases_passed, cases_failed, cases_skipped;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (cond) {                                                  \
			passed++;                                            \
		} else {                                                     \
			failed++;                                            \
			printf("    %s:%d: ", __FILE__, __LINE__);           \
			printf(__VA_ARGS__);                                 \
			putchar('\n');                                       \
		}                                                            \
	} while (0)

/* One protocol line for the assertions made since the counters were p0
 * and f0: "ok   NAME (N assertions)" or "FAIL NAME: ...". */
static void case_end(const char *name, int p0, int f0)
{
	int ok = passed - p0, bad = failed - f0;
	if (bad) {
		cases_failed++;
		printf("FAIL %s: %d of %d assertions failed (above)\n", name, bad,
		       ok + bad);
	} else if (!ok) {
		cases_failed++;
		printf("FAIL %s: no assertion ran\n", name);
	} else {
		cases_passed++;
		printf("ok   %s (%d assertion%s)\n", name, ok, ok == 1 ? "" : "s");
	}
}

#define CASE(name, call)                                                     \
	do {                                                                 \
		int p0_ = passed, f0_ = failed;                              \
		call;                                                        \
		case_end(name, p0_, f0_);                                    \
	} while (0)

struct fmt {
	const char *name;
	uint8_t bpp;
	uint32_t extra_pitch; /* bytes of padding after each visible row */
	uint8_t rp, rs, gp, gs, bp, bs;
};

static uint8_t pad_byte(uint32_t y)
{
	return (uint8_t)(SENTINEL ^ (y * 7 + 1));
}

struct buf {
	struct framebuffer fb;
	uint8_t *mem;
	size_t size; /* pitch * height; GUARD sentinel bytes follow */
	uint32_t bytes;
};

static struct buf make_buf(const struct fmt *f, uint32_t w, uint32_t h)
{
	struct buf b;
	memset(&b, 0, sizeof b);
	b.bytes = f->bpp / 8u;
	b.fb.present = true;
	b.fb.addr = 0xfd000000u;
	b.fb.type = 1;
	b.fb.bpp = f->bpp;
	b.fb.width = w;
	b.fb.height = h;
	b.fb.pitch = w * b.bytes + f->extra_pitch;
	b.fb.red_pos = f->rp;
	b.fb.red_size = f->rs;
	b.fb.green_pos = f->gp;
	b.fb.green_size = f->gs;
	b.fb.blue_pos = f->bp;
	b.fb.blue_size = f->bs;
	b.size = (size_t)b.fb.pitch * h;
	b.mem = malloc(b.size + GUARD);
	if (!b.mem) {
		perror("malloc");
		exit(1);
	}
	memset(b.mem, SENTINEL, b.size + GUARD);
	/* Row-specific padding, so bytes copied between rows show up. */
	for (uint32_t y = 0; y < h; y++)
		for (size_t i = (size_t)w * b.bytes; i < b.fb.pitch; i++)
			b.mem[(size_t)y * b.fb.pitch + i] = pad_byte(y);
	return b;
}

static uint32_t px(const struct buf *b, uint32_t x, uint32_t y)
{
	const uint8_t *p = b->mem + (size_t)y * b->fb.pitch + (size_t)x * b->bytes;
	uint32_t v = 0;
	for (uint32_t i = 0; i < b->bytes; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

/* Expected pixel for a colour whose channels are each 0x00 or 0xff. */
static uint32_t full(const struct buf *b, uint32_t rgb)
{
	uint32_t v = 0;
	if (rgb & 0xff0000)
		v |= ((1u << b->fb.red_size) - 1) << b->fb.red_pos;
	if (rgb & 0x00ff00)
		v |= ((1u << b->fb.green_size) - 1) << b->fb.green_pos;
	if (rgb & 0x0000ff)
		v |= ((1u << b->fb.blue_size) - 1) << b->fb.blue_pos;
	return v;
}

/* Pitch padding and the guard after the buffer must never be written. */
static bool outside_untouched(const struct buf *b)
{
	size_t vis = (size_t)b->fb.width * b->bytes;
	for (uint32_t y = 0; y < b->fb.height; y++)
		for (size_t i = vis; i < b->fb.pitch; i++)
			if (b->mem[(size_t)y * b->fb.pitch + i] != pad_byte(y))
				return false;
	for (size_t i = 0; i < GUARD; i++)
		if (b->mem[b->size + i] != SENTINEL)
			return false;
	return true;
}

/* Nothing at all written since make_buf. */
static bool all_sentinel(const struct buf *b)
{
	size_t vis = (size_t)b->fb.width * b->bytes;
	for (uint32_t y = 0; y < b->fb.height; y++)
		for (size_t i = 0; i < vis; i++)
			if (b->mem[(size_t)y * b->fb.pitch + i] != SENTINEL)
				return false;
	return outside_untouched(b);
}

/* Does text cell (col, row) show glyph in fg on bg, pixel for pixel? */
static bool cell_is(const struct buf *b, uint32_t col, uint32_t row,
		    const uint8_t *glyph, uint32_t fg, uint32_t bg)
{
	for (uint32_t y = 0; y < 16; y++)
		for (uint32_t x = 0; x < 8; x++) {
			bool on = glyph[y] & (0x80u >> x);
			if (px(b, col * 8 + x, row * 16 + y) != (on ? fg : bg))
				return false;
		}
	return true;
}

static const uint8_t *glyph(char c)
{
	return fbcon_font8x16[(unsigned char)c - 32];
}

static const uint8_t blank[16];

/* Every visible pixel outside the given cell equals bg. */
static bool rest_is(const struct buf *b, uint32_t col, uint32_t row, uint32_t bg)
{
	for (uint32_t y = 0; y < b->fb.height; y++)
		for (uint32_t x = 0; x < b->fb.width; x++) {
			if (x / 8 == col && y / 16 == row && x < b->fb.width / 8 * 8 &&
			    y < b->fb.height / 16 * 16)
				continue;
			if (px(b, x, y) != bg)
				return false;
		}
	return true;
}

static void puts_con(const char *s)
{
	while (*s)
		fbcon_putc(*s++);
}

static int lit_pixels(const uint8_t *g)
{
	int n = 0;
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 8; x++)
			n += !!(g[y] & (0x80u >> x));
	return n;
}

static void test_before_init(void)
{
	CHECK(fbcon_columns() == 0 && fbcon_rows() == 0, "sizes before init");
	fbcon_putc('A');
	fbcon_putc('\n');
	fbcon_set_color(0x123456, 0x654321);
	CHECK(fbcon_columns() == 0, "putc before init changed state");
}

static void test_font_sane(void)
{
	/* A blank or garbled 'A' would make the pixel tests meaningless. */
	CHECK(lit_pixels(glyph(' ')) == 0, "space glyph not blank");
	CHECK(lit_pixels(glyph('A')) > 15, "'A' glyph has too few pixels");
	CHECK(lit_pixels(glyph('_')) > 3, "'_' glyph nearly empty");
	CHECK(memcmp(glyph('A'), glyph('B'), 16) != 0, "'A' and 'B' identical");
	/* Unifont's underscore sits on the descent line, below row 12. */
	int low = 0;
	for (int y = 13; y < 16; y++)
		low += glyph('_')[y] != 0;
	CHECK(low == 1, "'_' not placed near the cell bottom");
}

static void test_rejects(void)
{
	static const struct fmt ok32 = {"xrgb", 32, 0, 16, 8, 8, 8, 0, 8};
	struct buf b = make_buf(&ok32, 64, 48);
	struct framebuffer fb;

	CHECK(!fbcon_init(NULL, b.mem), "NULL fb accepted");
	CHECK(!fbcon_init(&b.fb, NULL), "NULL pixels accepted");

#define REJECT(what, field, value)                                            \
	do {                                                                  \
		fb = b.fb;                                                    \
		fb.field = value;                                             \
		CHECK(!fbcon_init(&fb, b.mem), "accepted %s", what);          \
	} while (0)
	REJECT("not present", present, false);
	REJECT("indexed type 0", type, 0);
	REJECT("EGA text type 2", type, 2);
	REJECT("type 3", type, 3);
	REJECT("8 bpp", bpp, 8);
	REJECT("15 bpp", bpp, 15);
	REJECT("0 bpp", bpp, 0);
	REJECT("64 bpp", bpp, 64);
	REJECT("pitch < width * 4", pitch, 64 * 4 - 1);
	REJECT("width < 8", width, 7);
	REJECT("height < 16", height, 15);
	REJECT("zero-size red", red_size, 0);
	REJECT("blue past bpp", blue_pos, 30);
	REJECT("oversized green", green_size, 33);
#undef REJECT
	fb = b.fb;
	fb.bpp = 16; /* fields of a 32-bit layout do not fit 16 bits */
	CHECK(!fbcon_init(&fb, b.mem), "accepted 16 bpp with 24-bit fields");

	/* Depths whose fields would fit but which are not supported. */
	fb = b.fb;
	fb.bpp = 8;
	fb.red_pos = 5, fb.red_size = 3, fb.green_pos = 2, fb.green_size = 3;
	fb.blue_pos = 0, fb.blue_size = 2;
	CHECK(!fbcon_init(&fb, b.mem), "accepted 8 bpp 3:3:2");
	fb.bpp = 15;
	fb.red_pos = 10, fb.red_size = 5, fb.green_pos = 5, fb.green_size = 5;
	fb.blue_pos = 0, fb.blue_size = 5;
	CHECK(!fbcon_init(&fb, b.mem), "accepted 15 bpp 5:5:5");

	CHECK(all_sentinel(&b), "rejected init wrote to the buffer");
	CHECK(fbcon_columns() == 0, "rejected init left a console");
	fbcon_putc('X');
	CHECK(all_sentinel(&b), "putc after rejected init wrote");
	free(b.mem);
}

/* 83x69 pixels: 10 columns, 4 rows and partial cells right and below. */
#define W 83
#define H 69

static void test_format(const struct fmt *f)
{
	struct buf b = make_buf(f, W, H);
	uint32_t white = full(&b, 0xffffff), black = 0;
	uint32_t green = full(&b, 0x00ff00), blue = full(&b, 0x0000ff);
	uint32_t red = full(&b, 0xff0000);

	CHECK(white != 0 && green != blue && red != green, "%s: test colours", f->name);
	CHECK(fbcon_init(&b.fb, b.mem), "%s: init failed", f->name);
	CHECK(fbcon_columns() == 10 && fbcon_rows() == 4, "%s: %ux%u cells", f->name,
	      fbcon_columns(), fbcon_rows());
	CHECK(rest_is(&b, 99, 99, black), "%s: init did not clear to black", f->name);
	CHECK(outside_untouched(&b), "%s: init wrote outside", f->name);

	/* 'A' in the first cell only, white on black. */
	fbcon_putc('A');
	CHECK(cell_is(&b, 0, 0, glyph('A'), white, black), "%s: 'A' pixels", f->name);
	CHECK(rest_is(&b, 0, 0, black), "%s: 'A' drew outside its cell", f->name);

	/* Newline goes down one cell to column 0, in the new colours. */
	fbcon_set_color(0x00ff00, 0x0000ff);
	puts_con("\nA");
	CHECK(cell_is(&b, 0, 1, glyph('A'), green, blue), "%s: 'A' after newline", f->name);
	CHECK(cell_is(&b, 0, 0, glyph('A'), white, black), "%s: first 'A' changed", f->name);
	CHECK(cell_is(&b, 1, 1, blank, black, black), "%s: cell after 'A' touched", f->name);

	/* Carriage return overwrites from column 0. */
	puts_con("xy\rz");
	CHECK(cell_is(&b, 0, 1, glyph('z'), green, blue), "%s: '\\r' overwrite", f->name);
	CHECK(cell_is(&b, 2, 1, glyph('y'), green, blue), "%s: 'y' kept", f->name);

	/* Tab: spaces up to the next multiple of 8. */
	puts_con("\nab\tc");
	CHECK(cell_is(&b, 8, 2, glyph('c'), green, blue), "%s: tab to column 8", f->name);
	for (uint32_t c = 2; c < 8; c++)
		CHECK(cell_is(&b, c, 2, blank, green, blue), "%s: tab cell %u", f->name, c);

	/* Mid grey rounds per channel width (0x8410 is 5:6:5 grey). */
	fbcon_set_color(0x808080, 0x000000);
	puts_con("\r\x7f");
	uint32_t grey = f->rs == 8 ? (0x80u << f->rp | 0x80u << f->gp | 0x80u << f->bp) : 0x8410;
	bool lit_grey = false, other = false;
	for (uint32_t y = 0; y < 16; y++)
		for (uint32_t x = 0; x < 8; x++) {
			uint32_t v = px(&b, x, 32 + y);
			lit_grey |= v == grey;
			other |= v != grey && v != 0;
		}
	/* DEL has no glyph: a box is drawn, not nothing. */
	CHECK(lit_grey && !other, "%s: grey box for DEL", f->name);
	CHECK(outside_untouched(&b), "%s: drawing wrote outside", f->name);
	free(b.mem);
}

static void test_wrap_and_scroll(const struct fmt *f)
{
	struct buf b = make_buf(f, W, H);
	uint32_t white = full(&b, 0xffffff), red = full(&b, 0xff0000);

	CHECK(fbcon_init(&b.fb, b.mem), "%s: init", f->name);
	/* 11 characters in 10 columns: the 11th starts row 1. */
	puts_con("0123456789X");
	CHECK(cell_is(&b, 9, 0, glyph('9'), white, 0), "%s: last column", f->name);
	CHECK(cell_is(&b, 0, 1, glyph('X'), white, 0), "%s: wrapped to row 1", f->name);
	/* A full line then '\n' must not leave an empty line. */
	puts_con("\rABCDEFGHIJ\nY");
	CHECK(cell_is(&b, 0, 2, glyph('Y'), white, 0), "%s: full line + newline", f->name);
	/* A tab in the last column stops at the edge, not on the next line. */
	puts_con("\n123456789\tQ");
	CHECK(cell_is(&b, 0, 3, glyph('Q'), white, 0), "%s: tab at the right edge", f->name);
	/* The partial column right of the cells stays background. */
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 80; x < W; x++)
			if (px(&b, x, y) != 0) {
				CHECK(false, "%s: pixel (%u,%u) right of the cells", f->name, x, y);
				y = H;
				break;
			}

	/* Scroll: re-init, fill 4 rows, then one more newline. */
	CHECK(fbcon_init(&b.fb, b.mem), "%s: re-init", f->name);
	puts_con("a\nb\nc\nd");
	CHECK(cell_is(&b, 0, 3, glyph('d'), white, 0), "%s: 'd' on last row", f->name);
	fbcon_set_color(0xffffff, 0xff0000);
	fbcon_putc('\n');
	CHECK(cell_is(&b, 0, 0, glyph('b'), white, 0), "%s: 'b' scrolled to row 0", f->name);
	CHECK(cell_is(&b, 0, 1, glyph('c'), white, 0), "%s: 'c' scrolled to row 1", f->name);
	CHECK(cell_is(&b, 0, 2, glyph('d'), white, 0), "%s: 'd' scrolled to row 2", f->name);
	bool cleared = true;
	for (uint32_t y = 48; y < 64; y++)
		for (uint32_t x = 0; x < W; x++)
			cleared &= px(&b, x, y) == red;
	CHECK(cleared, "%s: last row not cleared to the current background", f->name);
	bool below = true;
	for (uint32_t y = 64; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			below &= px(&b, x, y) == 0;
	CHECK(below, "%s: rows below the text area changed", f->name);
	fbcon_putc('e');
	CHECK(cell_is(&b, 0, 3, glyph('e'), white, red), "%s: 'e' after scroll", f->name);

	/* Wrapping at the bottom right scrolls too. */
	puts_con("123456789Z");
	CHECK(cell_is(&b, 0, 3, glyph('Z'), white, red), "%s: wrap + scroll", f->name);
	CHECK(cell_is(&b, 0, 2, glyph('e'), white, red), "%s: 'e' moved up", f->name);

	/* Lots of output: only the memory checks matter here. */
	for (int i = 0; i < 500; i++)
		puts_con("The quick brown fox\tjumps\r\n\x01\xff");
	CHECK(outside_untouched(&b), "%s: scrolling wrote outside", f->name);
	free(b.mem);
}

/* A fixed header row and status row around a scrolling region, text put
 * at cells, and pixel rectangles (the result and QR screens). */
static void test_regions(const struct fmt *f)
{
	struct buf b = make_buf(f, W, H);
	uint32_t white = full(&b, 0xffffff), red = full(&b, 0xff0000);

	CHECK(fbcon_init(&b.fb, b.mem), "%s: init", f->name);
	CHECK(fbcon_width() == W && fbcon_height() == H, "%s: pixel size", f->name);
	fbcon_put_at(9, 0, 'H');
	fbcon_put_at(0, 3, 'S');
	fbcon_put_at(10, 0, 'X'); /* outside: nothing */
	fbcon_put_at(0, 4, 'X');
	fbcon_set_scroll_rows(1, 3);
	puts_con("a\nb\nc");
	CHECK(cell_is(&b, 0, 1, glyph('b'), white, 0), "%s: 'b' scrolled to the region's top", f->name);
	CHECK(cell_is(&b, 0, 2, glyph('c'), white, 0), "%s: 'c' on the region's last row", f->name);
	CHECK(cell_is(&b, 9, 0, glyph('H'), white, 0), "%s: header row kept", f->name);
	CHECK(cell_is(&b, 0, 3, glyph('S'), white, 0), "%s: status row kept", f->name);
	CHECK(cell_is(&b, 0, 0, blank, 0, 0), "%s: nothing scrolled into the header", f->name);
	/* A bad region is the whole screen; the cursor is moved into it. */
	fbcon_set_scroll_rows(2, 2);
	puts_con("\n\n\n");
	CHECK(cell_is(&b, 9, 0, blank, 0, 0), "%s: whole screen scrolled", f->name);

	fbcon_clear_rows(0, 99);
	fbcon_fill_rect(4, 20, 1000, 5, 0xff0000);
	bool inside = true, rest = true;
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++) {
			bool in = x >= 4 && y >= 20 && y < 25;
			if (in)
				inside &= px(&b, x, y) == red;
			else
				rest &= px(&b, x, y) == 0;
		}
	CHECK(inside, "%s: rectangle not filled", f->name);
	CHECK(rest, "%s: rectangle drawn outside its (clipped) area", f->name);
	fbcon_fill_rect(W, 0, 5, 5, 0xff0000); /* off screen: nothing */
	CHECK(outside_untouched(&b), "%s: rectangle wrote outside", f->name);
	/* A cell under the rectangle is drawn again, even as a blank. */
	fbcon_put_at(1, 1, ' ');
	CHECK(cell_is(&b, 1, 1, blank, 0, 0), "%s: blank over the rectangle", f->name);
	fbcon_put_at(2, 1, 'Q');
	CHECK(cell_is(&b, 2, 1, glyph('Q'), white, 0), "%s: glyph over the rectangle", f->name);
	free(b.mem);
}

static void test_failed_reinit_keeps_console(void)
{
	static const struct fmt f = {"565", 16, 1, 11, 5, 5, 6, 0, 5};
	struct buf a = make_buf(&f, 40, 40), b = make_buf(&f, 40, 40);

	CHECK(fbcon_init(&a.fb, a.mem), "init a");
	b.fb.type = 0;
	CHECK(!fbcon_init(&b.fb, b.mem), "indexed b accepted");
	CHECK(fbcon_columns() == 5 && fbcon_rows() == 2, "failed init changed the size");
	fbcon_putc('Q');
	CHECK(cell_is(&a, 0, 0, glyph('Q'), 0xffff, 0), "console moved off a");
	CHECK(all_sentinel(&b), "failed init wrote to b");
	free(a.mem);
	free(b.mem);
}

/* ---- mkfont must fail loudly on bad input ---- */

static char tmpdir[64];

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
	if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(d);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return d;
}

static void spit(const char *path, const uint8_t *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(d, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Runs mkfont on font; returns its exit status, -1 if it did not exit. */
static int run_mkfont(const char *tool, const char *font, bool *said_why, bool *made_output)
{
	char out[128], err[128], cmd[1024];
	snprintf(out, sizeof out, "%s/out.c", tmpdir);
	snprintf(err, sizeof err, "%s/err.txt", tmpdir);
	unlink(out);
	snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' 2>'%s'", tool, font, out, err);
	int st = system(cmd);
	struct stat s;
	*said_why = stat(err, &s) == 0 && s.st_size > 0;
	*made_output = stat(out, &s) == 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_mkfont_fails(const char *tool, const char *font, const char *what)
{
	bool why, made;
	int st = run_mkfont(tool, font, &why, &made);
	CHECK(st > 0 && why && !made, "mkfont on %s: status %d, message %d, output %d",
	      what, st, why, made);
}

/* Offset of the 9-byte CHIX entry for code point cp (a byte search is
 * enough: the header before CHIX holds no such pattern). */
static size_t chix_entry(const uint8_t *d, size_t len, uint8_t cp)
{
	const uint8_t pat[5] = {0, 0, 0, cp, 0};
	for (size_t i = 0; i + 9 <= len; i++)
		if (memcmp(d + i, pat, 5) == 0)
			return i;
	return 0;
}

static void test_mkfont(const char *tool, const char *pf2)
{
	size_t len = 0;
	uint8_t *d = slurp(pf2, &len);
	char path[128];
	bool why, made;

	CHECK(d && len > 2000, "cannot read %s", pf2);
	if (!d || len <= 2000)
		return;
	strcpy(tmpdir, "/tmp/fbcon-test-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(path, sizeof path, "%s/bad.pf2", tmpdir);

	CHECK(run_mkfont(tool, pf2, &why, &made) == 0 && made, "mkfont on the real font");

	snprintf(path, sizeof path, "%s/missing.pf2", tmpdir);
	expect_mkfont_fails(tool, path, "a missing file");
	snprintf(path, sizeof path, "%s/bad.pf2", tmpdir);

	static const size_t cuts[] = {0, 4, 11, 12, 40, 100, 300, 1000, 2000};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		char what[64];
		spit(path, d, cuts[i]);
		snprintf(what, sizeof what, "the first %zu bytes", cuts[i]);
		expect_mkfont_fails(tool, path, what);
	}

	uint8_t *m = malloc(len);
	memcpy(m, d, len);
	m[8] = 'X'; /* PFF2 -> XFF2 */
	spit(path, m, len);
	expect_mkfont_fails(tool, path, "a wrong magic");

	size_t e = chix_entry(d, len, 'A');
	CHECK(e != 0, "no CHIX entry for 'A' in %s", pf2);
	if (e) {
		memcpy(m, d, len);
		memset(m + e + 5, 0xff, 4); /* glyph offset far past the end */
		spit(path, m, len);
		expect_mkfont_fails(tool, path, "a glyph offset past the end");

		memcpy(m, d, len);
		m[e + 4] = 0x01; /* compressed storage flag */
		spit(path, m, len);
		expect_mkfont_fails(tool, path, "a compressed glyph");

		memcpy(m, d, len);
		size_t g = (size_t)m[e + 5] << 24 | (size_t)m[e + 6] << 16 |
			   (size_t)m[e + 7] << 8 | m[e + 8];
		if (g + 10 <= len) {
			m[g + 1] = 9; /* 9 pixels wide: does not fit 8 */
			spit(path, m, len);
			expect_mkfont_fails(tool, path, "a glyph wider than 8");
		}

		memcpy(m, d, len);
		m[e + 3] = 0; /* no more 'A' (and CHIX out of order) */
		spit(path, m, len);
		expect_mkfont_fails(tool, path, "a font without 'A'");
	}
	free(m);
	free(d);
	snprintf(path, sizeof path, "%s/bad.pf2", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/err.txt", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/out.c", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	static const struct fmt formats[] = {
		/* odd pitches make pixels straddle word boundaries */
		{"32bpp xrgb pitch+3", 32, 3, 16, 8, 8, 8, 0, 8},
		{"32bpp xbgr", 32, 0, 0, 8, 8, 8, 16, 8},
		{"24bpp rgb pitch+5", 24, 5, 16, 8, 8, 8, 0, 8},
		{"24bpp bgr pitch+1", 24, 1, 0, 8, 8, 8, 16, 8},
		{"16bpp 565 pitch+1", 16, 1, 11, 5, 5, 6, 0, 5},
		{"16bpp 565", 16, 0, 11, 5, 5, 6, 0, 5},
	};

	char name[96];

	CASE("before init", test_before_init());
	CASE("font", test_font_sane());
	CASE("rejects bad framebuffers", test_rejects());
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		snprintf(name, sizeof name, "draw %s", formats[i].name);
		CASE(name, test_format(&formats[i]));
		snprintf(name, sizeof name, "wrap and scroll %s", formats[i].name);
		CASE(name, test_wrap_and_scroll(&formats[i]));
		snprintf(name, sizeof name, "regions and rectangles %s", formats[i].name);
		CASE(name, test_regions(&formats[i]));
	}
	CASE("failed re-init keeps the console",
	     test_failed_reinit_keeps_console());
	if (argc == 3) {
		CASE("mkfont rejects broken fonts", test_mkfont(argv[1], argv[2]));
	} else {
		cases_skipped++;
		printf("skip mkfont rejects broken fonts: needs MKFONT PF2 "
		       "arguments\n");
	}

	printf("fbcon: %d passed, %d failed, %d skipped\n", cases_passed,
	       cases_failed, cases_skipped);
	return cases_failed ? 1 : 0;
}
