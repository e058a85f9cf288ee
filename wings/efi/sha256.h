/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), incremental, for apstart.efi's check of the
 * kernels it loads (wings/efi/kernel_hash.c) and for host tests. Pure C:
 * no library call, no allocation. Not linked into the kernel. */
#ifndef APSTART_SHA256_H
#define APSTART_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

struct sha256 {
	uint32_t h[8];       /* the hash value so far (FIPS 180-4 §6.2) */
	uint64_t length;     /* message bytes taken so far */
	uint8_t block[64];   /* a block not yet full */
	size_t used;         /* bytes in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t size);
/* Pads the message (§5.1.1), writes the digest; s must be initialised
 * again before it is used for another message. */
void sha256_final(struct sha256 *s, uint8_t digest[SHA256_BYTES]);
/* One message at once. */
void sha256(const void *data, size_t size, uint8_t digest[SHA256_BYTES]);

#endif
