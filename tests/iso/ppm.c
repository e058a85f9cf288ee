/* SPDX-License-Identifier: MIT */
#include "tests/iso/ppm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *fail(FILE *f, unsigned char *px, const char *why)
{
	if (f)
		fclose(f);
	free(px);
	return why;
}

const char *ppm_read(const char *file, struct ppm *img)
{
	static char msg[160];
	memset(img, 0, sizeof *img);
	FILE *f = fopen(file, "rb");
	if (!f) {
		snprintf(msg, sizeof msg, "%s", strerror(errno));
		return msg;
	}
	unsigned long w, h, maxval;
	if (getc(f) != 'P' || getc(f) != '6')
		return fail(f, NULL, "not a binary PPM (no P6 magic)");
	if (header_number(f, &w) || header_number(f, &h) || header_number(f, &maxval))
		return fail(f, NULL, "malformed header (want P6 WIDTH HEIGHT MAXVAL)");
	if (w == 0 || h == 0 || w > PPM_MAX_SIDE || h > PPM_MAX_SIDE)
		return fail(f, NULL, "width or height is 0 or larger than 16384");
	if (maxval == 0 || maxval > 65535)
		return fail(f, NULL, "maxval must be 1..65535");

	/* Samples are 1 byte, or 2 bytes big-endian when maxval > 255. */
	size_t bps = maxval > 255 ? 2 : 1;
	size_t total = (size_t)w * 3 * bps * (size_t)h;
	unsigned char *px = malloc(total);
	if (!px)
		return fail(f, NULL, "out of memory");
	size_t got = fread(px, 1, total, f);
	int extra = getc(f);
	if (ferror(f))
		return fail(f, px, "read error");
	if (got != total) {
		snprintf(msg, sizeof msg, "truncated: %zu of %zu bytes of pixel data", got, total);
		return fail(f, px, msg);
	}
	if (extra != EOF)
		return fail(f, px, "data after the pixels (not a single image)");
	fclose(f);

	uint32_t *rgb = malloc((size_t)w * h * sizeof *rgb);
	if (!rgb)
		return fail(NULL, px, "out of memory");
	for (size_t i = 0; i < (size_t)w * h; i++) {
		uint32_t v = 0;
		for (size_t c = 0; c < 3; c++) {
			const unsigned char *s = px + (i * 3 + c) * bps;
			unsigned long x = bps == 2 ? (unsigned long)s[0] << 8 | s[1] : s[0];
			if (x > maxval) {
				free(rgb);
				return fail(NULL, px, "sample larger than maxval");
			}
			v = v << 8 | (uint32_t)((x * 255 + maxval / 2) / maxval);
		}
		rgb[i] = v;
	}
	free(px);
	img->w = w;
	img->h = h;
	img->maxval = maxval;
	img->rgb = rgb;
	return NULL;
}

void ppm_free(struct ppm *img)
{
	free(img->rgb);
	img->rgb = NULL;
}
