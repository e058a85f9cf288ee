/* SPDX-License-Identifier: MIT */
/* ppmcheck: does a screenshot (binary PPM, P6) show text near the top?
 *
 *   ppmcheck [--rows N] [--min-pixels N] FILE.ppm
 *
 * Looks at the top N rows (default 64: four 16-pixel text lines), takes
 * the colour found most often there as the background, and counts the
 * pixels of any other colour. Text passes; a blank screen of any colour
 * (all black, all blue) does not. Prints one line:
 *   ppmcheck: WxH maxval M, top R rows: background #rrggbb, K of T pixels differ
 *
 * Exit status: 0 enough non-background pixels (at least --min-pixels,
 * default 500), 1 too few, 2 unreadable or malformed file, bad usage. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 16384u /* larger than any screen QEMU makes */

static const char *prog = "ppmcheck";

static int bad(const char *file, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, file, why);
	return 2;
}

/* Header token: skips whitespace and '#' comments (to end of line), then
 * reads an unsigned decimal. Returns 0 on success. */
static int header_number(FILE *f, unsigned long *out)
{
	int c;

	for (;;) {
		c = getc(f);
		if (c == '#') {
			while (c != '\n' && c != '\r' && c != EOF)
				c = getc(f);
		}
		if (c == EOF)
			return -1;
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f')
			break;
	}
	if (c < '0' || c > '9')
		return -1;
	unsigned long v = 0;
	while (c >= '0' && c <= '9') {
		if (v > 1000000ul)
			return -1; /* no header value of ours is this large */
		v = v * 10 + (unsigned long)(c - '0');
		c = getc(f);
	}
	/* Exactly one whitespace character ends the header's last number; for
	 * the others any whitespace (or a comment) may follow. */
	if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f')
		return -1;
	*out = v;
	return 0;
}

static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--rows N] [--min-pixels N] FILE.ppm\n", prog);
}

int main(int argc, char **argv)
{
	unsigned long rows = 64, min_pixels = 500;
	const char *file = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], MAX_SIDE, &rows) || rows == 0) {
				usage();
				return 2;
			}
		} else if (strcmp(argv[i], "--min-pixels") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], (unsigned long)MAX_SIDE * MAX_SIDE, &min_pixels)) {
				usage();
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			usage();
			return 2;
		} else if (!file) {
			file = argv[i];
		} else {
			usage();
			return 2;
		}
	}
	if (!file) {
		usage();
		return 2;
	}

	FILE *f = fopen(file, "rb");
	if (!f)
		return bad(file, strerror(errno));

	unsigned long w, h, maxval;
	if (getc(f) != 'P' || getc(f) != '6') {
		fclose(f);
		return bad(file, "not a binary PPM (no P6 magic)");
	}
	if (header_number(f, &w) || header_number(f, &h) || header_number(f, &maxval)) {
		fclose(f);
		return bad(file, "malformed header (want P6 WIDTH HEIGHT MAXVAL)");
	}
	if (w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE) {
		fclose(f);
		return bad(file, "width or height is 0 or larger than 16384");
	}
	if (maxval == 0 || maxval > 65535) {
		fclose(f);
		return bad(file, "maxval must be 1..65535");
	}

	/* Samples are 1 byte, or 2 bytes big-endian when maxval > 255. */
	size_t bps = maxval > 255 ? 2 : 1;
	size_t row_bytes = (size_t)w * 3 * bps;
	size_t total = row_bytes * (size_t)h;
	unsigned char *px = malloc(total);
	if (!px) {
		fclose(f);
		return bad(file, "out of memory");
	}
	size_t got = fread(px, 1, total, f);
	int extra = getc(f);
	int read_error = ferror(f);
	fclose(f);
	if (read_error) {
		free(px);
		return bad(file, "read error");
	}
	if (got != total) {
		char msg[128];
		snprintf(msg, sizeof msg, "truncated: %zu of %zu bytes of pixel data", got, total);
		free(px);
		return bad(file, msg);
	}
	if (extra != EOF) {
		free(px);
		return bad(file, "data after the pixels (not a single image)");
	}

	if (rows > h)
		rows = h;
	size_t n = (size_t)w * rows;

	/* Colours scaled to 8 bits; the most frequent one is the background. */
	uint32_t *count = calloc(1u << 24, sizeof *count);
	if (!count) {
		free(px);
		return bad(file, "out of memory");
	}
	uint32_t bg = 0, bg_count = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t rgb = 0;
		for (size_t c = 0; c < 3; c++) {
			const unsigned char *s = px + (i * 3 + c) * bps;
			unsigned long v = bps == 2 ? (unsigned long)s[0] << 8 | s[1] : s[0];
			if (v > maxval) {
				free(count);
				free(px);
				return bad(file, "sample larger than maxval");
			}
			rgb = rgb << 8 | (uint32_t)((v * 255 + maxval / 2) / maxval);
		}
		if (++count[rgb] > bg_count) {
			bg_count = count[rgb];
			bg = rgb;
		}
	}
	size_t differ = n - bg_count;
	printf("%s: %lux%lu maxval %lu, top %lu rows: background #%06x, %zu of %zu pixels differ\n",
	       prog, w, h, maxval, rows, (unsigned)bg, differ, n);
	free(count);
	free(px);
	if (differ < min_pixels) {
		fprintf(stderr, "%s: %s: only %zu non-background pixels in the top %lu rows, want >= %lu (blank screen?)\n",
			prog, file, differ, rows, min_pixels);
		return 1;
	}
	return 0;
}
