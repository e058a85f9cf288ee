/* SPDX-License-Identifier: MIT */
/* A kernel image's payload decompressed by the distribution's own tools
 * (gzip, xz, zstd, lz4, bzip2, lzma, lzop), never by a decompressor of
 * ours: the format from its magic, as arch/x86/boot/compressed/Makefile
 * makes it. */
#ifndef APREALMODE_DECOMPRESS_H
#define APREALMODE_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "wings/linux_trampoline/lrm_blob.h"

/* The most a payload may decompress to (Linux's vmlinux: 16-70 MB). */
#define DECOMPRESS_MAX ((size_t)1 << 30)
/* Seconds a decompressor may take (xz: ~1 s for 65 MB here). */
#define DECOMPRESS_SECONDS 120

struct payload_format {
	const char *name;     /* "xz" */
	const uint8_t *magic; /* the payload's first bytes */
	size_t magic_len;
	const char *const *argv; /* the command, reading stdin, writing stdout */
	const char *package;  /* Debian's package with the command */
	int size_appended;    /* Linux appends the u32 decompressed size
				 (its *_with_size rules): cut, then checked */
};

/* The format whose magic begins payload, or NULL. */
const struct payload_format *payload_format_of(const uint8_t *payload, size_t len);

/* Decompresses payload (len bytes) with fmt's command into *out (malloc'd,
 * *out_len bytes). Returns 1, or 0 with why: the command missing, failing
 * (its first line of stderr), too slow, too big, or, where Linux appended
 * the size, a length that is not that size. */
int decompress(const struct payload_format *fmt, const uint8_t *payload, size_t len,
	       uint8_t **out, size_t *out_len, char why[LRM_WHY_SIZE]);

#endif
