/* SPDX-License-Identifier: MIT */
/* Host unit tests for wings/screen/qr.c: its internals (included here), error
 * returns and both renderers. The symbols themselves are checked against
 * an independent encoder and a decoder by tests/qr/check.py.
 * Prints "ok   NAME" / "FAIL NAME: WHY" per check. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wings/screen/qr.c"

static uint8_t mods[QR_BUFFER_BYTES_MAX], wk[QR_BUFFER_BYTES_MAX];
static int failures;

/* One check: prints ok, or FAIL with the first reason given. */
struct check {
	const char *name;
	char why[256];
};

static void check_begin(struct check *c, const char *name)
{
	c->name = name;
	c->why[0] = '\0';
}

static void fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof c->why, fmt, ap);
	va_end(ap);
}

static void check_end(struct check *c)
{
	if (c->why[0]) {
		printf("FAIL %s: %s\n", c->name, c->why);
		failures++;
	} else {
		printf("ok   %s\n", c->name);
	}
}

static enum qr_status enc(const uint8_t *d, size_t len, enum qr_ecc ecc, int minv, int maxv,
			  int mask, struct qr_code *qr)
{
	struct qr_options o = { ecc, minv, maxv, mask };

	return qr_encode(d, len, &o, mods, sizeof mods, wk, sizeof wk, qr);
}

static void fill(uint8_t *d, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		d[i] = (uint8_t)(seed >> 16);
	}
}

static void test_data_modules(void)
{
	struct check c;

	check_begin(&c, "data module count formula = modules outside function patterns, v1-40");
	for (int v = 1; v <= 40; v++) {
		int n = QR_SIZE(v), count = 0;

		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++)
				count += !is_function(v, x, y);
		if (count != data_modules(v))
			fail(&c, "v%d: formula %d, counted %d", v, data_modules(v), count);
	}
	check_end(&c);
}

static void test_alignment_table(void)
{
	/* ISO/IEC 18004:2015 Table E.1, a few rows (v32 is the odd one). */
	static const struct { int v, n, pos[7]; } rows[] = {
		{ 2, 2, { 6, 18 } },
		{ 7, 3, { 6, 22, 38 } },
		{ 15, 4, { 6, 26, 48, 70 } },
		{ 22, 5, { 6, 26, 50, 74, 98 } },
		{ 32, 6, { 6, 34, 60, 86, 112, 138 } },
		{ 36, 7, { 6, 24, 50, 76, 102, 128, 154 } },
		{ 40, 7, { 6, 30, 58, 86, 114, 142, 170 } },
	};
	struct check c;

	check_begin(&c, "alignment centres = Table E.1 rows 2, 7, 15, 22, 32, 36, 40");
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		int v = rows[r].v, found = 0;

		/* Centres are where near_align_centre() says the distance is 0. */
		for (int p = 0; p < QR_SIZE(v); p++) {
			int centre;

			if (near_align_centre(v, p, &centre) && centre == p) {
				if (found >= rows[r].n || rows[r].pos[found] != p)
					fail(&c, "v%d: unexpected centre %d", v, p);
				found++;
			}
		}
		if (found != rows[r].n)
			fail(&c, "v%d: %d centres, expected %d", v, found, rows[r].n);
	}
	check_end(&c);
}

static void test_capacity(void)
{
	/* Table 7, byte mode. */
	static const struct { int v; size_t l, m; } rows[] = {
		{ 1, 17, 14 }, { 7, 154, 122 }, { 9, 230, 180 }, { 10, 271, 213 },
		{ 40, 2953, 2331 },
	};
	struct check c;

	check_begin(&c, "byte capacities = Table 7 (v1, 7, 9, 10, 40) and 0 out of range");
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		if (qr_capacity(rows[r].v, QR_ECC_L) != rows[r].l)
			fail(&c, "v%d-L: %zu", rows[r].v, qr_capacity(rows[r].v, QR_ECC_L));
		if (qr_capacity(rows[r].v, QR_ECC_M) != rows[r].m)
			fail(&c, "v%d-M: %zu", rows[r].v, qr_capacity(rows[r].v, QR_ECC_M));
	}
	if (qr_capacity(0, QR_ECC_L) || qr_capacity(41, QR_ECC_M) || qr_capacity(1, (enum qr_ecc)2))
		fail(&c, "out-of-range arguments give a capacity");
	check_end(&c);
}

static void test_bch(void)
{
	struct check c;

	/* Annex C Table C.1 and Annex D Table D.1 entries. */
	check_begin(&c, "format (L/M mask 0) and version (7, 40) BCH words = Annexes C, D");
	if ((bch(1u << 3 | 0, 10, FORMAT_POLY) ^ FORMAT_MASK) != 0x77C4) /* 111011111000100 */
		fail(&c, "L mask 0: %#x", bch(1u << 3, 10, FORMAT_POLY) ^ FORMAT_MASK);
	if ((bch(0, 10, FORMAT_POLY) ^ FORMAT_MASK) != 0x5412) /* 101010000010010 */
		fail(&c, "M mask 0");
	if (bch(7, 12, VERSION_POLY) != 0x07C94)
		fail(&c, "version 7: %#x", bch(7, 12, VERSION_POLY));
	if (bch(40, 12, VERSION_POLY) != 0x28C69)
		fail(&c, "version 40: %#x", bch(40, 12, VERSION_POLY));
	check_end(&c);
}

/* Every block's codeword polynomial (data then ecc) must vanish at the
 * generator's roots a^0 .. a^(ecc-1): checks the division independently
 * of how the generator was built. */
static void test_rs_syndromes(void)
{
	static const int versions[] = { 1, 5, 6, 9, 10, 21, 33, 40 };
	static uint8_t d[3000];
	struct check c;

	check_begin(&c, "Reed-Solomon syndromes are zero for every block (8 versions x L, M)");
	for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++)
		for (int e = 0; e < 2; e++) {
			int v = versions[k];
			size_t len = qr_capacity(v, (enum qr_ecc)e) - k;
			struct qr_code qr;
			struct layout l = layout_of(v, (enum qr_ecc)e);

			fill(d, len, (unsigned)(v * 2 + e));
			if (enc(d, len, (enum qr_ecc)e, v, v, 0, &qr) != QR_OK) {
				fail(&c, "v%d: encode failed", v);
				continue;
			}
			for (int b = 0; b < l.blocks; b++) {
				int dlen = l.short_len + (b >= l.short_blocks);
				uint8_t root = 1;

				for (int r = 0; r < l.ecc_len; r++, root = gf_mul(root, 2)) {
					uint8_t s = 0;

					for (int i = 0; i < dlen; i++)
						s = gf_mul(s, root) ^ wk[block_start(&l, b) + i];
					for (int i = 0; i < l.ecc_len; i++)
						s = gf_mul(s, root) ^ wk[l.data_cw + b * l.ecc_len + i];
					if (s)
						fail(&c, "v%d-%c block %d root %d: syndrome %#x", v,
						     "LM"[e], b, r, s);
				}
			}
		}
	check_end(&c);
}

static void test_limits(void)
{
	static uint8_t d[3000];
	struct check c;
	struct qr_code qr;

	fill(d, sizeof d, 7);
	check_begin(&c, "capacity fits, capacity + 1 is QR_ERR_TOO_LONG, smallest version chosen");
	for (int v = 1; v <= 40; v++)
		for (int e = 0; e < 2; e++) {
			size_t cap = qr_capacity(v, (enum qr_ecc)e);
			enum qr_status st;

			st = enc(d, cap, (enum qr_ecc)e, 1, v, QR_MASK_AUTO, &qr);
			if (st != QR_OK || qr.version != v || qr.data_len != cap || qr.size != QR_SIZE(v))
				fail(&c, "v%d-%c: %zu bytes gave %d, version %d", v, "LM"[e], cap, st,
				     qr.version);
			st = enc(d, cap + 1, (enum qr_ecc)e, 1, v, QR_MASK_AUTO, &qr);
			if (st != QR_ERR_TOO_LONG || qr.version != 0 || qr.modules)
				fail(&c, "v%d-%c: %zu bytes gave %d", v, "LM"[e], cap + 1, st);
		}
	if (enc(d, 0, QR_ECC_M, 1, 40, QR_MASK_AUTO, &qr) != QR_OK || qr.version != 1)
		fail(&c, "empty data is not version 1");
	if (enc(d, 15, QR_ECC_L, 3, 40, 5, &qr) != QR_OK || qr.version != 3 || qr.mask != 5)
		fail(&c, "min_version or forced mask ignored");
	check_end(&c);
}

static void test_bad_arguments(void)
{
	struct qr_options ok = { QR_ECC_L, 1, 40, QR_MASK_AUTO }, o;
	struct qr_code qr;
	uint8_t d[4] = "abc";
	struct check c;

	check_begin(&c, "bad arguments: QR_ERR_ARG / QR_ERR_BUFFER, symbol cleared");
#define EXPECT(st_expected, ...)                                                              \
	do {                                                                                  \
		enum qr_status st_ = qr_encode(__VA_ARGS__);                                  \
		if (st_ != (st_expected) || qr.version || qr.modules)                         \
			fail(&c, "line %d: status %d (%s)", __LINE__, st_, qr_strerror(st_)); \
	} while (0)
	qr.version = 99;
	if (qr_encode(d, 3, &ok, mods, sizeof mods, wk, sizeof wk, NULL) != QR_ERR_ARG)
		fail(&c, "NULL out accepted");
	EXPECT(QR_ERR_ARG, d, 3, NULL, mods, sizeof mods, wk, sizeof wk, &qr);
	EXPECT(QR_ERR_ARG, NULL, 3, &ok, mods, sizeof mods, wk, sizeof wk, &qr);
	EXPECT(QR_ERR_ARG, d, 3, &ok, NULL, sizeof mods, wk, sizeof wk, &qr);
	EXPECT(QR_ERR_ARG, d, 3, &ok, mods, sizeof mods, NULL, sizeof wk, &qr);
	o = ok, o.ecc = (enum qr_ecc)2;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.min_version = 0;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.max_version = 41;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.min_version = 5, o.max_version = 4;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.mask = 8;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.mask = -2;
	EXPECT(QR_ERR_ARG, d, 3, &o, mods, sizeof mods, wk, sizeof wk, &qr);
	o = ok, o.max_version = 7;
	EXPECT(QR_ERR_BUFFER, d, 3, &o, mods, QR_BUFFER_BYTES(7) - 1, wk, sizeof wk, &qr);
	EXPECT(QR_ERR_BUFFER, d, 3, &o, mods, sizeof mods, wk, QR_BUFFER_BYTES(7) - 1, &qr);
	EXPECT(QR_ERR_BUFFER, d, 3, &ok, mods, 100, wk, 100, &qr);
	if (qr_encode(NULL, 0, &ok, mods, sizeof mods, wk, sizeof wk, &qr) != QR_OK)
		fail(&c, "NULL data of length 0 refused");
	o = ok, o.max_version = 7;
	if (qr_encode(d, 3, &o, mods, QR_BUFFER_BYTES(7), wk, QR_BUFFER_BYTES(7), &qr) != QR_OK)
		fail(&c, "exact buffer size for version 7 refused");
#undef EXPECT
	if (strcmp(qr_strerror(QR_ERR_TOO_LONG), "data too long for the largest version allowed"))
		fail(&c, "qr_strerror");
	check_end(&c);
}

static void test_version_for_modules(void)
{
	static const struct { int modules, quiet, v; } rows[] = {
		{ 50, 2, 7 }, { 50, 4, 6 }, { 49, 2, 7 }, { 48, 2, 6 }, { 21, 0, 1 }, { 20, 0, 0 },
		{ 29, 4, 1 }, { 28, 4, 0 }, { 177, 0, 40 }, { 1000, 4, 40 }, { 100, -1, 0 },
	};
	struct check c;

	check_begin(&c, "qr_max_version_for_modules (text screen 50 rows: v7 at quiet 2, v6 at 4)");
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
		if (qr_max_version_for_modules(rows[r].modules, rows[r].quiet) != rows[r].v)
			fail(&c, "(%d, %d) = %d, expected %d", rows[r].modules, rows[r].quiet,
			     qr_max_version_for_modules(rows[r].modules, rows[r].quiet), rows[r].v);
	check_end(&c);
}

/* --- Renderers ------------------------------------------------------------ */

struct text_grid {
	int cols, rows, calls, bad;
	uint8_t cell[100][100];
	uint8_t seen[100][100];
};

static void grid_put(void *ctx, int col, int row, uint8_t ch)
{
	struct text_grid *g = ctx;

	g->calls++;
	if (col < 0 || row < 0 || col >= g->cols || row >= g->rows || g->seen[row][col]++) {
		g->bad++;
		return;
	}
	g->cell[row][col] = ch;
}

static void test_text_renderer(void)
{
	static uint8_t d[200];
	struct check c;
	struct qr_code qr;

	fill(d, sizeof d, 3);
	check_begin(&c, "text renderer: every cell once, glyphs = module pairs, both inks, quiet 0-4");
	for (int quiet = 0; quiet <= 4; quiet++)
		for (int ink = 0; ink < 2; ink++) {
			static struct text_grid g;
			int span;

			if (enc(d, 100 + quiet, QR_ECC_L, 1, 7, QR_MASK_AUTO, &qr) != QR_OK) {
				fail(&c, "encode");
				break;
			}
			memset(&g, 0, sizeof g);
			span = qr.size + 2 * quiet;
			g.cols = qr_text_cols(&qr, quiet);
			g.rows = qr_text_rows(&qr, quiet);
			if (g.cols != span || g.rows != (span + 1) / 2)
				fail(&c, "size %dx%d for span %d", g.cols, g.rows, span);
			qr_render_text(&qr, quiet, (enum qr_ink)ink, grid_put, &g);
			if (g.bad || g.calls != g.cols * g.rows)
				fail(&c, "%d calls, %d outside or repeated", g.calls, g.bad);
			for (int row = 0; row < g.rows; row++)
				for (int col = 0; col < g.cols; col++) {
					uint8_t ch = g.cell[row][col];
					bool top_ink = ch == 0xDB || ch == 0xDF;
					bool bottom_ink = ch == 0xDB || ch == 0xDC;
					bool top = qr_module(&qr, col - quiet, 2 * row - quiet);
					bool bottom = qr_module(&qr, col - quiet, 2 * row + 1 - quiet);
					bool outside = 2 * row + 1 >= span;

					if (ch != 0xDB && ch != 0xDF && ch != 0xDC && ch != ' ')
						fail(&c, "glyph %#x", ch);
					if (ink == QR_INK_LIGHT) {
						top = !top;
						bottom = !bottom && !outside;
					}
					if (top_ink != top || bottom_ink != bottom)
						fail(&c, "quiet %d ink %d cell %d,%d: %#x", quiet, ink,
						     col, row, ch);
				}
		}
	check_end(&c);
}

struct pixels {
	int span, scale, calls, bad, last_y, last_end;
	bool last_dark;
	uint8_t hits[400][400];
	bool dark[400][400];
};

static void pixels_rect(void *ctx, int x, int y, int w, int h, bool dark)
{
	struct pixels *p = ctx;
	int px = p->span * p->scale;

	p->calls++;
	if (x < 0 || y < 0 || w <= 0 || h != p->scale || x + w > px || y + h > px) {
		p->bad++;
		return;
	}
	/* Runs are maximal: a run continuing a row changes colour. */
	if (y == p->last_y && x == p->last_end && dark == p->last_dark)
		p->bad++;
	p->last_y = y;
	p->last_end = x + w;
	p->last_dark = dark;
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++) {
			p->hits[j][i]++;
			p->dark[j][i] = dark;
		}
}

static void test_pixel_renderer(void)
{
	static uint8_t d[60];
	static struct pixels p;
	struct check c;
	struct qr_code qr;

	fill(d, sizeof d, 5);
	check_begin(&c, "pixel renderer: covers the square once, maximal runs, colours = modules");
	for (int quiet = 0; quiet <= 4; quiet += 4)
		for (int scale = 1; scale <= 3; scale++) {
			if (enc(d, sizeof d, QR_ECC_M, 1, 40, QR_MASK_AUTO, &qr) != QR_OK) {
				fail(&c, "encode");
				break;
			}
			memset(&p, 0, sizeof p);
			p.span = qr.size + 2 * quiet;
			p.scale = scale;
			p.last_y = -1;
			qr_render_pixels(&qr, quiet, scale, pixels_rect, &p);
			if (p.bad)
				fail(&c, "quiet %d scale %d: %d bad rectangles", quiet, scale, p.bad);
			for (int y = 0; y < p.span * scale; y++)
				for (int x = 0; x < p.span * scale; x++)
					if (p.hits[y][x] != 1 ||
					    p.dark[y][x] != qr_module(&qr, x / scale - quiet,
								      y / scale - quiet))
						fail(&c, "quiet %d scale %d pixel %d,%d: hit %d times",
						     quiet, scale, x, y, p.hits[y][x]);
		}
	check_end(&c);
}

static void test_no_hidden_state(void)
{
	static uint8_t first[QR_BUFFER_BYTES_MAX], d[500];
	struct check c;
	struct qr_code a, b;

	fill(d, sizeof d, 9);
	check_begin(&c, "same input, same symbol, whatever the buffers held before");
	enc(d, sizeof d, QR_ECC_M, 1, 40, QR_MASK_AUTO, &a);
	memcpy(first, mods, sizeof first);
	memset(mods, 0xFF, sizeof mods);
	memset(wk, 0x5A, sizeof wk);
	enc(d, sizeof d, QR_ECC_M, 1, 40, QR_MASK_AUTO, &b);
	if (a.version != b.version || a.mask != b.mask ||
	    memcmp(first, mods, (size_t)QR_BUFFER_BYTES(a.version)))
		fail(&c, "second encoding differs");
	check_end(&c);
}

static void count_cell(void *ctx, int col, int row, uint8_t ch)
{
	(void)col, (void)row, (void)ch;
	++*(int *)ctx;
}

static void count_rect(void *ctx, int x, int y, int w, int h, bool dark)
{
	(void)x, (void)y, (void)w, (void)h, (void)dark;
	++*(int *)ctx;
}

static void test_renderer_bad_arguments(void)
{
	struct qr_code qr, none = { 0 };
	struct check c;
	int calls = 0;

	check_begin(&c, "renderers draw nothing for quiet < 0, scale < 1, no symbol or callback");
	enc((const uint8_t *)"x", 1, QR_ECC_L, 1, 40, QR_MASK_AUTO, &qr);
	qr_render_text(&qr, -1, QR_INK_LIGHT, count_cell, &calls);
	qr_render_text(NULL, 2, QR_INK_LIGHT, count_cell, &calls);
	qr_render_text(&none, 2, QR_INK_LIGHT, count_cell, &calls);
	qr_render_text(&qr, 2, QR_INK_LIGHT, NULL, &calls);
	qr_render_pixels(&qr, -1, 2, count_rect, &calls);
	qr_render_pixels(&qr, 4, 0, count_rect, &calls);
	qr_render_pixels(NULL, 4, 2, count_rect, &calls);
	qr_render_pixels(&none, 4, 2, count_rect, &calls);
	qr_render_pixels(&qr, 4, 2, NULL, &calls);
	if (calls)
		fail(&c, "%d callbacks", calls);
	check_end(&c);
}

int main(void)
{
	test_data_modules();
	test_alignment_table();
	test_capacity();
	test_bch();
	test_rs_syndromes();
	test_limits();
	test_bad_arguments();
	test_version_for_modules();
	test_text_renderer();
	test_pixel_renderer();
	test_renderer_bad_arguments();
	test_no_hidden_state();
	return failures ? 1 : 0;
}
