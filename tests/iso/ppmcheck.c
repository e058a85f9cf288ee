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

#include "tests/iso/ppm.h"

static const char *prog = "ppmcheck";

static int bad(const char *file, const char *why)
{
	fprintf(stderr, "%s: %s: %s\n", prog, file, why);
	return 2;
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
			if (parse_count(argv[++i], PPM_MAX_SIDE, &rows) || rows == 0) {
				usage();
				return 2;
			}
		} else if (strcmp(argv[i], "--min-pixels") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], (unsigned long)PPM_MAX_SIDE * PPM_MAX_SIDE, &min_pixels)) {
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

	struct ppm img;
	const char *why = ppm_read(file, &img);
	if (why)
		return bad(file, why);
	unsigned long w = img.w, h = img.h, maxval = img.maxval;

	if (rows > h)
		rows = h;
	size_t n = (size_t)w * rows;

	/* The most frequent colour is the background. */
	uint32_t *count = calloc(1u << 24, sizeof *count);
	if (!count) {
		ppm_free(&img);
		return bad(file, "out of memory");
	}
	uint32_t bg = 0, bg_count = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t rgb = img.rgb[i];
		if (++count[rgb] > bg_count) {
			bg_count = count[rgb];
			bg = rgb;
		}
	}
	size_t differ = n - bg_count;
	printf("%s: %lux%lu maxval %lu, top %lu rows: background #%06x, %zu of %zu pixels differ\n",
	       prog, w, h, maxval, rows, (unsigned)bg, differ, n);
	free(count);
	ppm_free(&img);
	if (differ < min_pixels) {
		fprintf(stderr, "%s: %s: only %zu non-background pixels in the top %lu rows, want >= %lu (blank screen?)\n",
			prog, file, differ, rows, min_pixels);
		return 1;
	}
	return 0;
}
