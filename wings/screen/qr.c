/* SPDX-License-Identifier: MIT */
/* QR code encoder, byte mode, levels L and M, versions 1-40, after
 * ISO/IEC 18004:2015 (section numbers below are that edition's). Every
 * function works on the caller's buffers; nothing is static but const
 * tables, so APs may encode concurrently into their own buffers. */
#include "wings/screen/qr.h"

/* Table 9: error correction codewords per block, and number of blocks,
 * indexed [level][version - 1]; level L first, then M. */
static const uint8_t ecc_per_block[2][QR_VERSION_MAX] = {
	{ 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
	  28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 },
	{ 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
	  26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28 },
};
static const uint8_t block_count[2][QR_VERSION_MAX] = {
	{ 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
	  8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25 },
	{ 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
	  17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49 },
};

/* Table 25 (format information): level indicator bits. */
static const uint8_t ecc_format_bits[2] = { 1 /* L = 01 */, 0 /* M = 00 */ };

#define MODE_BYTE 0x4 /* Table 2 */
#define PAD0 0xEC     /* 7.4.10: pad codewords, alternating */
#define PAD1 0x11
#define GF_POLY 0x11D /* 7.5.2: x^8 + x^4 + x^3 + x^2 + 1 */
#define FORMAT_POLY 0x537   /* Annex C: BCH(15,5) generator */
#define FORMAT_MASK 0x5412  /* 7.9.1: XORed so no format is all light */
#define VERSION_POLY 0x1F25 /* Annex D: BCH(18,6) generator */

/* Modules left for codewords in version v: everything but the function
 * patterns (6.3) and format/version information (7.9, 7.10). Remainder
 * bits (size % 8) stay light. */
static int data_modules(int v)
{
	int n = QR_SIZE(v);
	int count = n * n;

	count -= 3 * 8 * 8;      /* finders with their separators */
	count -= 2 * (n - 16);   /* timing row and column between them */
	count -= 2 * 15 + 1;     /* two copies of format info, dark module */
	if (v >= 2) {
		int k = v / 7 + 2; /* alignment centres per axis (Annex E) */

		count -= 25 * (k * k - 3); /* all but the three at finders */
		count += 2 * 5 * (k - 2);  /* those on row/col 6 share 5 timing modules */
	}
	if (v >= 7)
		count -= 2 * 18; /* two copies of version info */
	return count;
}

static int total_codewords(int v)
{
	return data_modules(v) / 8;
}

static int data_codewords(int v, enum qr_ecc ecc)
{
	return total_codewords(v) - ecc_per_block[ecc][v - 1] * block_count[ecc][v - 1];
}

/* Table 3: the character count field of byte mode. */
static int count_bits(int v)
{
	return v <= 9 ? 8 : 16;
}

size_t qr_capacity(int version, enum qr_ecc ecc)
{
	if (version < QR_VERSION_MIN || version > QR_VERSION_MAX ||
	    (ecc != QR_ECC_L && ecc != QR_ECC_M))
		return 0;
	return (size_t)(data_codewords(version, ecc) * 8 - 4 - count_bits(version)) / 8;
}

int qr_max_version_for_modules(int max_modules, int quiet)
{
	int v;

	if (quiet < 0)
		return 0;
	for (v = QR_VERSION_MAX; v >= QR_VERSION_MIN; v--)
		if (QR_SIZE(v) + 2 * quiet <= max_modules)
			return v;
	return 0;
}

/* Alignment pattern centres (Annex E, Table E.1): k per axis, the first at
 * 6, the last at size - 7, the others spaced evenly backwards from the last
 * by an even step. The table follows "the smallest even step that spans
 * the gap" except for version 32, whose step is 26. */
static int align_step(int v)
{
	int k = v / 7 + 2;
	int span = QR_SIZE(v) - 13; /* from 6 to size - 7 */
	int step;

	if (v == 32)
		return 26;
	step = (span + k - 2) / (k - 1); /* ceil(span / (k - 1)) */
	return step + (step & 1);
}

/* Whether coordinate c lies within 2 of an alignment centre; the centre
 * goes to *centre. Only for v >= 2. */
static bool near_align_centre(int v, int c, int *centre)
{
	int last = QR_SIZE(v) - 7, k = v / 7 + 2, step = align_step(v);
	int j;

	if (c >= 4 && c <= 8) {
		*centre = 6;
		return true;
	}
	if (c > last + 2)
		return false;
	j = (last - c + 2) / step; /* nearest centre at or after c - 2 */
	if (j > k - 2)
		return false;
	*centre = last - j * step;
	return c >= *centre - 2 && c <= *centre + 2;
}

/* Function patterns, format and version information: everything the data
 * bits skip (6.3, 7.7.3). */
static bool is_function(int v, int x, int y)
{
	int n = QR_SIZE(v), ax, ay;

	if (x == 6 || y == 6)
		return true; /* timing, and finder rows */
	if (y <= 8 && (x <= 8 || x >= n - 8))
		return true; /* top finders, separators, format info */
	if (x <= 8 && y >= n - 8)
		return true; /* bottom-left finder, format info, dark module */
	if (v >= 7 && ((x >= n - 11 && y <= 5) || (y >= n - 11 && x <= 5)))
		return true; /* version info */
	if (v >= 2 && near_align_centre(v, x, &ax) && near_align_centre(v, y, &ay)) {
		int last = n - 7;

		/* No alignment pattern where it would overlap a finder. */
		return !((ax == 6 && ay == 6) || (ax == 6 && ay == last) ||
			 (ax == last && ay == 6));
	}
	return false;
}

static void set_module(uint8_t *m, int n, int x, int y, bool dark)
{
	int i = y * n + x;

	if (dark)
		m[i >> 3] |= (uint8_t)(1u << (i & 7));
	else
		m[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

static bool get_module(const uint8_t *m, int n, int x, int y)
{
	int i = y * n + x;

	return (m[i >> 3] >> (i & 7)) & 1;
}

bool qr_module(const struct qr_code *qr, int x, int y)
{
	if (x < 0 || y < 0 || x >= qr->size || y >= qr->size)
		return false;
	return get_module(qr->modules, qr->size, x, y);
}

/* --- Codewords ---------------------------------------------------------- */

struct bit_writer {
	uint8_t *buf;
	int bits;
};

static void put_bits(struct bit_writer *w, uint32_t value, int count)
{
	while (count-- > 0) {
		int i = w->bits++;

		if ((i & 7) == 0)
			w->buf[i >> 3] = 0;
		if ((value >> count) & 1)
			w->buf[i >> 3] |= (uint8_t)(0x80u >> (i & 7));
	}
}

/* 7.4: mode, count, data, terminator, padding up to data_cw codewords. */
static void write_data(const uint8_t *data, size_t len, int v, int data_cw, uint8_t *cw)
{
	struct bit_writer w = { cw, 0 };
	int capacity_bits = data_cw * 8, pad;
	size_t i;

	put_bits(&w, MODE_BYTE, 4);
	put_bits(&w, (uint32_t)len, count_bits(v));
	for (i = 0; i < len; i++)
		put_bits(&w, data[i], 8);
	/* Terminator: up to four zero bits, then zeros to a codeword boundary. */
	put_bits(&w, 0, capacity_bits - w.bits < 4 ? capacity_bits - w.bits : 4);
	put_bits(&w, 0, (8 - (w.bits & 7)) & 7);
	for (pad = 0; w.bits < capacity_bits; pad ^= 1)
		put_bits(&w, pad ? PAD1 : PAD0, 8);
}

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	unsigned r = 0, x = a;

	while (b) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= GF_POLY;
		b >>= 1;
	}
	return (uint8_t)r;
}

/* 7.5.2: generator polynomial prod (x - a^i), i < degree, with a = 2;
 * coefficients from x^(degree-1) down to x^0 (the x^degree one is 1). */
static void rs_generator(int degree, uint8_t *gen)
{
	uint8_t root = 1;
	int i, j;

	for (i = 0; i < degree; i++)
		gen[i] = 0;
	gen[degree - 1] = 1; /* the polynomial 1, as if of degree 0 */
	for (i = 0; i < degree; i++) {
		/* Multiply by (x + root): shift up, add root times itself. */
		for (j = 0; j < degree; j++) {
			gen[j] = gf_mul(gen[j], root);
			if (j + 1 < degree)
				gen[j] ^= gen[j + 1];
		}
		root = gf_mul(root, 2);
	}
}

/* The remainder of data(x) * x^degree divided by the generator. */
static void rs_remainder(const uint8_t *data, int len, const uint8_t *gen, int degree,
			 uint8_t *rem)
{
	int i, j;

	for (j = 0; j < degree; j++)
		rem[j] = 0;
	for (i = 0; i < len; i++) {
		uint8_t factor = data[i] ^ rem[0];

		for (j = 0; j + 1 < degree; j++)
			rem[j] = rem[j + 1] ^ gf_mul(gen[j], factor);
		rem[degree - 1] = gf_mul(gen[degree - 1], factor);
	}
}

/* Block layout (7.5.1): the first `short_blocks` blocks hold short_len
 * data codewords, the rest one more. In work[], all data blocks come
 * first in order, then each block's ecc codewords. */
struct layout {
	int blocks, short_blocks, short_len, ecc_len, data_cw, total_cw;
};

static struct layout layout_of(int v, enum qr_ecc ecc)
{
	struct layout l;

	l.blocks = block_count[ecc][v - 1];
	l.ecc_len = ecc_per_block[ecc][v - 1];
	l.total_cw = total_codewords(v);
	l.data_cw = data_codewords(v, ecc);
	l.short_len = l.data_cw / l.blocks;
	l.short_blocks = l.blocks - l.data_cw % l.blocks;
	return l;
}

static int block_start(const struct layout *l, int b)
{
	return b * l->short_len + (b > l->short_blocks ? b - l->short_blocks : 0);
}

static void write_ecc(const struct layout *l, uint8_t *work)
{
	uint8_t gen[30]; /* Table 9: at most 30 ecc codewords per block */
	int b;

	rs_generator(l->ecc_len, gen);
	for (b = 0; b < l->blocks; b++) {
		int len = l->short_len + (b >= l->short_blocks);

		rs_remainder(work + block_start(l, b), len, gen, l->ecc_len,
			     work + l->data_cw + b * l->ecc_len);
	}
}

/* 7.6: codeword i of the final sequence: data codewords column by column
 * across blocks (short blocks have no last column), then ecc likewise. */
static uint8_t interleaved(const struct layout *l, const uint8_t *work, int i)
{
	int b, col;

	if (i < l->short_len * l->blocks) {
		col = i / l->blocks;
		b = i % l->blocks;
		return work[block_start(l, b) + col];
	}
	if (i < l->data_cw) { /* last column: long blocks only */
		b = l->short_blocks + (i - l->short_len * l->blocks);
		return work[block_start(l, b) + l->short_len];
	}
	i -= l->data_cw;
	col = i / l->blocks;
	b = i % l->blocks;
	return work[l->data_cw + b * l->ecc_len + col];
}

/* --- Modules ------------------------------------------------------------ */

static void draw_finder(uint8_t *m, int n, int x0, int y0)
{
	int x, y;

	for (y = 0; y < 7; y++)
		for (x = 0; x < 7; x++) {
			bool ring = x == 0 || y == 0 || x == 6 || y == 6;
			bool core = x >= 2 && x <= 4 && y >= 2 && y <= 4;

			set_module(m, n, x0 + x, y0 + y, ring || core);
		}
}

static void draw_alignment(uint8_t *m, int n, int cx, int cy)
{
	int dx, dy;

	for (dy = -2; dy <= 2; dy++)
		for (dx = -2; dx <= 2; dx++) {
			bool ring = dx == -2 || dx == 2 || dy == -2 || dy == 2;

			set_module(m, n, cx + dx, cy + dy, ring || (dx == 0 && dy == 0));
		}
}

/* BCH code: data followed by the remainder of data * x^rem_bits / poly. */
static uint32_t bch(uint32_t data, int rem_bits, uint32_t poly)
{
	uint32_t r = data << rem_bits;
	int bit;

	for (bit = 31; bit >= rem_bits; bit--)
		if ((r >> bit) & 1)
			r ^= poly << (bit - rem_bits);
	return (data << rem_bits) | r;
}

/* 7.9.1, Figure 25: bit 0 is the least significant. */
static void draw_format(uint8_t *m, int n, enum qr_ecc ecc, int mask)
{
	uint32_t bits = bch((uint32_t)(ecc_format_bits[ecc] << 3 | mask), 10, FORMAT_POLY) ^
			FORMAT_MASK;
	int i;

	for (i = 0; i < 15; i++) {
		bool dark = (bits >> i) & 1;

		/* Copy 1, around the top-left finder: up column 8, then
		 * left along row 8, stepping over the timing pattern. */
		if (i < 6)
			set_module(m, n, 8, i, dark);
		else if (i < 8)
			set_module(m, n, 8, i + 1, dark);
		else if (i == 8)
			set_module(m, n, 7, 8, dark);
		else
			set_module(m, n, 14 - i, 8, dark);
		/* Copy 2: row 8 from the right edge, then up column 8 from the
		 * bottom edge. */
		if (i < 8)
			set_module(m, n, n - 1 - i, 8, dark);
		else
			set_module(m, n, 8, n - 15 + i, dark);
	}
	set_module(m, n, 8, n - 8, true); /* 6.3.8's dark module */
}

/* 7.10, Figure 27: 6x3 blocks above the bottom-left finder and left of the
 * top-right finder (transposed), bit 0 nearest the corner. */
static void draw_version(uint8_t *m, int n, int v)
{
	uint32_t bits = bch((uint32_t)v, 12, VERSION_POLY);
	int i;

	for (i = 0; i < 18; i++) {
		bool dark = (bits >> i) & 1;

		set_module(m, n, n - 11 + i % 3, i / 3, dark);
		set_module(m, n, i / 3, n - 11 + i % 3, dark);
	}
}

static void draw_function_patterns(uint8_t *m, int v)
{
	int n = QR_SIZE(v), i, j;

	for (i = 0; i < QR_BUFFER_BYTES(v); i++)
		m[i] = 0;
	draw_finder(m, n, 0, 0);
	draw_finder(m, n, n - 7, 0);
	draw_finder(m, n, 0, n - 7);
	for (i = 8; i < n - 8; i++) {
		set_module(m, n, i, 6, (i & 1) == 0);
		set_module(m, n, 6, i, (i & 1) == 0);
	}
	if (v >= 2) {
		int k = v / 7 + 2, last = n - 7, step = align_step(v);

		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				int cx = i == 0 ? 6 : last - (k - 1 - i) * step;
				int cy = j == 0 ? 6 : last - (k - 1 - j) * step;

				if ((i == 0 && j == 0) || (i == 0 && j == k - 1) ||
				    (i == k - 1 && j == 0))
					continue;
				draw_alignment(m, n, cx, cy);
			}
	}
	if (v >= 7)
		draw_version(m, n, v);
}

/* 7.7.3: two-module columns from the right edge, alternately upwards and
 * downwards, skipping the vertical timing column; each codeword's most
 * significant bit first. */
static void place_data(uint8_t *m, int v, const struct layout *l, const uint8_t *work)
{
	int n = QR_SIZE(v), bit = 0, total_bits = l->total_cw * 8;
	bool upward = true;
	int right, step, side;

	for (right = n - 1; right >= 1; right -= 2, upward = !upward) {
		if (right == 6)
			right = 5;
		for (step = 0; step < n; step++) {
			int y = upward ? n - 1 - step : step;

			for (side = 0; side < 2; side++) {
				int x = right - side;
				bool dark = false;

				if (is_function(v, x, y))
					continue;
				if (bit < total_bits) /* remainder bits stay light */
					dark = (interleaved(l, work, bit >> 3) >> (7 - (bit & 7))) & 1;
				bit++;
				set_module(m, n, x, y, dark);
			}
		}
	}
}

/* Table 10: mask conditions, i the row, j the column. */
static bool mask_bit(int mask, int i, int j)
{
	switch (mask) {
	case 0: return (i + j) % 2 == 0;
	case 1: return i % 2 == 0;
	case 2: return j % 3 == 0;
	case 3: return (i + j) % 3 == 0;
	case 4: return (i / 2 + j / 3) % 2 == 0;
	case 5: return (i * j) % 2 + (i * j) % 3 == 0;
	case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0;
	default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0;
	}
}

/* XOR the mask into the data modules: applying it twice undoes it. */
static void apply_mask(uint8_t *m, int v, int mask)
{
	int n = QR_SIZE(v), x, y;

	for (y = 0; y < n; y++)
		for (x = 0; x < n; x++)
			if (mask_bit(mask, y, x) && !is_function(v, x, y))
				set_module(m, n, x, y, !get_module(m, n, x, y));
}

/* --- Penalty (7.8.3) ------------------------------------------------------ */

#define N1 3
#define N2 3
#define N3 40
#define N4 10
#define FINDER_LIGHT_AFTER 0x5D0  /* 1011101 0000 */
#define FINDER_LIGHT_BEFORE 0x05D /* 0000 1011101 */

/* Rules 1 and 3 along one line (a row, or a column when transposed). */
static long line_penalty(const uint8_t *m, int n, int line, bool column)
{
	long score = 0;
	unsigned window = 0;
	int i, run = 0;
	bool prev = false;

	for (i = 0; i < n; i++) {
		bool dark = column ? get_module(m, n, line, i) : get_module(m, n, i, line);

		if (i > 0 && dark == prev) {
			run++;
		} else {
			if (run >= 5)
				score += N1 + (run - 5);
			run = 1;
			prev = dark;
		}
		window = ((window << 1) | dark) & 0x7FF;
		if (i >= 10 && (window == FINDER_LIGHT_AFTER || window == FINDER_LIGHT_BEFORE))
			score += N3;
	}
	if (run >= 5)
		score += N1 + (run - 5);
	return score;
}

long qr_penalty(const struct qr_code *qr)
{
	const uint8_t *m = qr->modules;
	int n = qr->size, x, y;
	long score = 0, dark = 0, total = (long)n * n;

	for (y = 0; y < n; y++) {
		score += line_penalty(m, n, y, false);
		score += line_penalty(m, n, y, true);
	}
	for (y = 0; y < n; y++)
		for (x = 0; x < n; x++) {
			bool c = get_module(m, n, x, y);

			dark += c;
			if (x + 1 < n && y + 1 < n && c == get_module(m, n, x + 1, y) &&
			    c == get_module(m, n, x, y + 1) && c == get_module(m, n, x + 1, y + 1))
				score += N2;
		}
	/* Rule 4: N4 for every full 5% the dark share is away from 50%. */
	{
		long diff = 20 * dark - 10 * total;

		score += N4 * ((diff < 0 ? -diff : diff) / total);
	}
	return score;
}

/* --- Encoder ------------------------------------------------------------ */

const char *qr_strerror(enum qr_status st)
{
	switch (st) {
	case QR_OK: return "ok";
	case QR_ERR_TOO_LONG: return "data too long for the largest version allowed";
	case QR_ERR_ARG: return "bad argument (version, level, mask or NULL pointer)";
	case QR_ERR_BUFFER: return "buffer smaller than QR_BUFFER_BYTES(max_version)";
	}
	return "unknown QR status";
}

enum qr_status qr_encode(const void *data, size_t len, const struct qr_options *opt,
			 uint8_t *modules, size_t modules_len,
			 uint8_t *work, size_t work_len, struct qr_code *out)
{
	struct qr_code qr;
	struct layout l;
	int v;

	if (!out)
		return QR_ERR_ARG;
	out->version = out->size = out->mask = 0;
	out->ecc = QR_ECC_L;
	out->data_len = 0;
	out->modules = 0;
	if (!opt || !modules || !work || (!data && len) ||
	    (opt->ecc != QR_ECC_L && opt->ecc != QR_ECC_M) ||
	    opt->min_version < QR_VERSION_MIN || opt->max_version > QR_VERSION_MAX ||
	    opt->min_version > opt->max_version || opt->mask < QR_MASK_AUTO || opt->mask > 7)
		return QR_ERR_ARG;
	if (modules_len < (size_t)QR_BUFFER_BYTES(opt->max_version) ||
	    work_len < (size_t)QR_BUFFER_BYTES(opt->max_version))
		return QR_ERR_BUFFER;
	for (v = opt->min_version; v <= opt->max_version; v++)
		if (qr_capacity(v, opt->ecc) >= len)
			break;
	if (v > opt->max_version)
		return QR_ERR_TOO_LONG;

	l = layout_of(v, opt->ecc);
	write_data(data, len, v, l.data_cw, work);
	write_ecc(&l, work);
	draw_function_patterns(modules, v);
	place_data(modules, v, &l, work);

	qr.version = v;
	qr.size = QR_SIZE(v);
	qr.ecc = opt->ecc;
	qr.data_len = len;
	qr.modules = modules;
	qr.mask = opt->mask;
	if (qr.mask == QR_MASK_AUTO) {
		long best = 0;
		int mask;

		for (mask = 0; mask < 8; mask++) {
			long score;

			apply_mask(modules, v, mask);
			draw_format(modules, qr.size, opt->ecc, mask);
			score = qr_penalty(&qr);
			if (mask == 0 || score < best) {
				best = score;
				qr.mask = mask;
			}
			apply_mask(modules, v, mask);
		}
	}
	apply_mask(modules, v, qr.mask);
	draw_format(modules, qr.size, opt->ecc, qr.mask);
	*out = qr;
	return QR_OK;
}

/* --- Renderers ------------------------------------------------------------ */

int qr_text_cols(const struct qr_code *qr, int quiet)
{
	return qr->size + 2 * quiet;
}

int qr_text_rows(const struct qr_code *qr, int quiet)
{
	return (qr->size + 2 * quiet + 1) / 2;
}

void qr_render_text(const struct qr_code *qr, int quiet, enum qr_ink ink,
		    void (*put)(void *ctx, int col, int row, uint8_t cp437), void *ctx)
{
	static const uint8_t glyph[4] = {
		QR_CP437_EMPTY, QR_CP437_LOWER, QR_CP437_UPPER, QR_CP437_FULL,
	};
	int cols, rows, col, row;

	if (!qr || !qr->modules || !put || quiet < 0)
		return;
	cols = qr_text_cols(qr, quiet);
	rows = qr_text_rows(qr, quiet);
	for (row = 0; row < rows; row++)
		for (col = 0; col < cols; col++) {
			int x = col - quiet, y = 2 * row - quiet;
			/* A half cell below the quiet zone (odd height) is light. */
			bool top = qr_module(qr, x, y), bottom = qr_module(qr, x, y + 1);
			bool bottom_inside = 2 * row + 1 < qr->size + 2 * quiet;

			if (ink == QR_INK_LIGHT) {
				top = !top;
				bottom = !bottom && bottom_inside;
			}
			put(ctx, col, row, glyph[(top ? 2 : 0) | (bottom ? 1 : 0)]);
		}
}

void qr_render_pixels(const struct qr_code *qr, int quiet, int scale,
		      void (*rect)(void *ctx, int x, int y, int w, int h, bool dark),
		      void *ctx)
{
	int span, x, y;

	if (!qr || !qr->modules || !rect || quiet < 0 || scale < 1)
		return;
	span = qr->size + 2 * quiet;
	for (y = 0; y < span; y++) {
		int start = 0;

		for (x = 1; x <= span; x++) {
			bool prev = qr_module(qr, start - quiet, y - quiet);

			if (x < span && qr_module(qr, x - quiet, y - quiet) == prev)
				continue;
			rect(ctx, start * scale, y * scale, (x - start) * scale, scale, prev);
			start = x;
		}
	}
}
