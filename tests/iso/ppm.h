/* SPDX-License-Identifier: MIT */
/* Binary PPM (P6) screenshots as QEMU's screendump writes them, read
 * strictly: tests/iso/ppmcheck.c and tests/iso/screentext.c. */
#ifndef TESTS_ISO_PPM_H
#define TESTS_ISO_PPM_H

#include <stdint.h>

#define PPM_MAX_SIDE 16384u /* larger than any screen QEMU makes */

struct ppm {
	unsigned long w, h, maxval;
	uint32_t *rgb; /* w * h pixels, 0xRRGGBB scaled to 8 bits */
};

/* Reads file into *img. Returns NULL, or why it cannot (a malformed
 * header, truncated or extra data, a sample above maxval, ...). */
const char *ppm_read(const char *file, struct ppm *img);
void ppm_free(struct ppm *img);

#endif
