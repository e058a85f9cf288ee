/* SPDX-License-Identifier: MIT */
/* Host tool: turn a GRUB PF2 font into the kernel's 8x16 ASCII bitmap font.
 *
 *   mkfont [PF2] OUT.c        write fbcon_font8x16[95][16] to OUT.c
 *   mkfont --show CHARS [PF2] print the cells for CHARS as ASCII art
 *
 * PF2 is a chunked big-endian format: "FILE" (len 4, "PFF2"), header chunks
 * (NAME, ASCE, DESC, ...), "CHIX" (9-byte entries: code point u32, flags u8,
 * glyph offset u32), then "DATA" up to the end of the file. Each glyph is
 * width u16, height u16, x-offset s16, y-offset s16, device width s16 and a
 * row-major MSB-first bitmap without row padding, cropped to its bounding
 * box, so every glyph is placed into the cell by its offsets and the font
 * ascent. Any problem is fatal: a wrong font must not silently build. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL_W 8
#define CELL_H 16
#define FIRST 32
#define LAST 126
#define COUNT (LAST - FIRST + 1)
#define MAX_FILE (64u << 20)

static const char *default_paths[] = {
	"/usr/share/grub/ascii.pf2",
	"/usr/share/grub/unicode.pf2",
};

static const char *in_path;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkfont: %s: ", in_path ? in_path : "(no font)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct pf2 {
	const uint8_t *d;
	size_t len;
	size_t chix, chix_len; /* payload offset and length */
	int ascent, descent;
	uint8_t cells[COUNT][CELL_H];
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open: %s", strerror(errno));
	uint8_t *buf = malloc(MAX_FILE);
	if (!buf)
		die("out of memory");
	size_t n = fread(buf, 1, MAX_FILE, f);
	if (ferror(f))
		die("read error: %s", strerror(errno));
	if (n == MAX_FILE)
		die("larger than %u bytes, not a PF2 font", MAX_FILE);
	fclose(f);
	*len = n;
	return buf;
}

static void parse_header(struct pf2 *f)
{
	size_t p = 0;
	bool have_asce = false, have_desc = false;

	if (f->len < 12 || memcmp(f->d, "FILE", 4) != 0 || be32(f->d + 4) != 4 ||
	    memcmp(f->d + 8, "PFF2", 4) != 0)
		die("not a PF2 font (no FILE/PFF2 header)");
	p = 12;
	for (;;) {
		if (p + 8 > f->len)
			die("truncated before the DATA chunk");
		const uint8_t *name = f->d + p;
		uint32_t clen = be32(f->d + p + 4);
		p += 8;
		/* DATA runs to the end of the file (its length is 0xFFFFFFFF). */
		if (memcmp(name, "DATA", 4) == 0)
			break;
		if (clen > f->len - p)
			die("chunk %.4s at offset %zu overruns the file", (const char *)name, p - 8);
		if (memcmp(name, "ASCE", 4) == 0 || memcmp(name, "DESC", 4) == 0) {
			if (clen != 2)
				die("chunk %.4s has length %u, expected 2", (const char *)name, clen);
			if (name[0] == 'A') {
				f->ascent = be16(f->d + p);
				have_asce = true;
			} else {
				f->descent = be16(f->d + p);
				have_desc = true;
			}
		} else if (memcmp(name, "CHIX", 4) == 0) {
			if (clen == 0 || clen % 9 != 0)
				die("CHIX length %u is not a multiple of 9", clen);
			f->chix = p;
			f->chix_len = clen;
		}
		p += clen;
	}
	if (!have_asce || !have_desc)
		die("missing ASCE or DESC chunk");
	if (!f->chix_len)
		die("missing CHIX chunk");
	if (f->ascent <= 0 || f->ascent + f->descent > CELL_H)
		die("ascent %d + descent %d does not fit a %d-pixel cell", f->ascent,
		    f->descent, CELL_H);
}

/* Offset of the glyph for code point cp; entries are sorted, which the
 * lookup relies on, so that is checked too. */
static size_t find_glyph(const struct pf2 *f, uint32_t cp)
{
	size_t n = f->chix_len / 9;
	uint32_t prev = 0;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = f->d + f->chix + i * 9;
		uint32_t code = be32(e);
		if (i > 0 && code <= prev)
			die("CHIX not sorted at entry %zu", i);
		prev = code;
		if (code == cp) {
			if (e[4] & 0x07)
				die("U+%04X is stored compressed (flags 0x%02x), unsupported", cp, e[4]);
			return be32(e + 5);
		}
		if (code > cp)
			break;
	}
	die("no glyph for U+%04X '%c'", cp, (int)cp);
}

static void render(struct pf2 *f, uint32_t cp)
{
	size_t off = find_glyph(f, cp);
	uint8_t *cell = f->cells[cp - FIRST];

	if (off > f->len || f->len - off < 10)
		die("glyph U+%04X header at %zu is outside the file", cp, off);
	const uint8_t *g = f->d + off;
	int w = be16(g), h = be16(g + 2);
	int xoff = (int16_t)be16(g + 4), yoff = (int16_t)be16(g + 6);
	size_t bits = (size_t)w * (size_t)h;
	if ((bits + 7) / 8 > f->len - off - 10)
		die("glyph U+%04X bitmap (%dx%d) runs past the end of the file", cp, w, h);

	/* Cell row 0 is pad_top rows above the ascent line; the glyph's bottom
	 * edge is yoff pixels above the baseline. */
	int pad_top = (CELL_H - (f->ascent + f->descent)) / 2;
	int top = pad_top + f->ascent - (yoff + h);
	if (w > 0 && h > 0 && (xoff < 0 || xoff + w > CELL_W || top < 0 || top + h > CELL_H))
		die("glyph U+%04X '%c' (%dx%d at x %d, y %d) does not fit an %dx%d cell",
		    cp, (int)cp, w, h, xoff, yoff, CELL_W, CELL_H);

	memset(cell, 0, CELL_H);
	const uint8_t *bm = g + 10;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			size_t bit = (size_t)y * (size_t)w + (size_t)x;
			if (bm[bit / 8] & (0x80u >> (bit % 8)))
				cell[top + y] |= (uint8_t)(0x80u >> (xoff + x));
		}
}

static void show(const struct pf2 *f, const char *chars)
{
	for (const char *c = chars; *c; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch < FIRST || ch > LAST)
			die("--show: character 0x%02x is outside %d..%d", ch, FIRST, LAST);
		printf("'%c'\n", ch);
		for (int y = 0; y < CELL_H; y++) {
			putchar('|');
			for (int x = 0; x < CELL_W; x++)
				putchar(f->cells[ch - FIRST][y] & (0x80u >> x) ? '#' : '.');
			puts("|");
		}
	}
}

static void write_c(const struct pf2 *f, const char *out)
{
	size_t n = strlen(out);
	char *tmp = malloc(n + 5);
	if (!tmp)
		die("out of memory");
	memcpy(tmp, out, n);
	memcpy(tmp + n, ".tmp", 5);

	/* Write aside and rename so a failed run never leaves a usable file. */
	FILE *o = fopen(tmp, "w");
	if (!o)
		die("cannot create %s: %s", tmp, strerror(errno));
	fprintf(o, "/* Generated by tools/mkfont from %s. Do not edit. */\n", in_path);
	fprintf(o, "#include <stdint.h>\n\n");
	fprintf(o, "extern const uint8_t fbcon_font8x16[%d][%d];\n", COUNT, CELL_H);
	fprintf(o, "/* ASCII %d..%d, one byte per row, MSB = leftmost pixel. */\n",
		FIRST, LAST);
	fprintf(o, "const uint8_t fbcon_font8x16[%d][%d] = {\n", COUNT, CELL_H);
	for (int i = 0; i < COUNT; i++) {
		int ch = FIRST + i;
		if (ch == '\\')
			fprintf(o, "\t/* 0x%02x backslash */\n\t{", ch);
		else
			fprintf(o, "\t/* 0x%02x '%c' */\n\t{", ch, ch);
		for (int y = 0; y < CELL_H; y++)
			fprintf(o, "%s0x%02x", y ? ", " : "", f->cells[i][y]);
		fprintf(o, "},\n");
	}
	fprintf(o, "};\n");
	if (ferror(o) || fclose(o) != 0)
		die("write error on %s", tmp);
	if (rename(tmp, out) != 0)
		die("cannot rename %s to %s: %s", tmp, out, strerror(errno));
	free(tmp);
}

static void usage(void)
{
	fprintf(stderr, "usage: mkfont [FONT.pf2] OUT.c\n"
			"       mkfont --show CHARS [FONT.pf2]\n");
	exit(2);
}

static const char *pick_default(void)
{
	for (size_t i = 0; i < sizeof default_paths / sizeof default_paths[0]; i++) {
		FILE *f = fopen(default_paths[i], "rb");
		if (f) {
			fclose(f);
			return default_paths[i];
		}
	}
	in_path = default_paths[0];
	die("no font given and none of the defaults exists (install grub-common)");
}

int main(int argc, char **argv)
{
	const char *show_chars = NULL, *out = NULL;

	if (argc >= 2 && strcmp(argv[1], "--show") == 0) {
		if (argc < 3 || argc > 4)
			usage();
		show_chars = argv[2];
		in_path = argc == 4 ? argv[3] : NULL;
	} else if (argc == 2) {
		out = argv[1];
	} else if (argc == 3) {
		in_path = argv[1];
		out = argv[2];
	} else {
		usage();
	}
	if (!in_path || !*in_path)
		in_path = pick_default();

	struct pf2 f = {0};
	uint8_t *data = read_file(in_path, &f.len);
	f.d = data;
	parse_header(&f);
	for (uint32_t cp = FIRST; cp <= LAST; cp++)
		render(&f, cp);
	if (show_chars)
		show(&f, show_chars);
	else
		write_c(&f, out);
	free(data);
	return 0;
}
