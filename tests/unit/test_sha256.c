/* SPDX-License-Identifier: MIT */
/* wings/efi/sha256.c against the FIPS 180-2 examples and the NIST CAVP byte
 * vectors, fed whole and in every split, and against coreutils' sha256sum
 * on files of the sizes around the padding's edges. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "wings/efi/sha256.h"

static void hex(const uint8_t d[SHA256_BYTES], char out[2 * SHA256_BYTES + 1])
{
	for (unsigned i = 0; i < SHA256_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check_digest(const void *msg, size_t n, const char *want)
{
	uint8_t d[SHA256_BYTES];
	char got[2 * SHA256_BYTES + 1];

	sha256(msg, n, d);
	hex(d, got);
	CHECK_STREQ(got, want);
}

static void test_fips_examples(void)
{
	/* FIPS 180-2 Appendix B.1, B.2, B.3, and the empty message. */
	check_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	check_digest(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	char *million = malloc(1000000);
	CHECK(million != NULL);
	if (million) {
		memset(million, 'a', 1000000);
		check_digest(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		free(million);
	}
	/* NIST's 896-bit example (FIPS 180-4 examples, SHA-256 two blocks). */
	const char *long2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
			    "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	check_digest(long2, strlen(long2), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_cavp_bytes(void)
{
	/* NIST CAVP SHA256ShortMsg.rsp (byte-oriented), Len = 8 and 16. */
	static const uint8_t one[] = { 0xd3 };
	check_digest(one, 1, "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1");
	static const uint8_t two[] = { 0x11, 0xaf };
	check_digest(two, 2, "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98");
}

/* Every split of a message into two updates gives the one-shot digest. */
static void test_splits(void)
{
	uint8_t msg[200], whole[SHA256_BYTES], parts[SHA256_BYTES];
	unsigned bad = 0;

	for (unsigned i = 0; i < sizeof msg; i++)
		msg[i] = (uint8_t)(i * 131 + 7);
	for (size_t n = 0; n <= sizeof msg; n++) {
		sha256(msg, n, whole);
		for (size_t cut = 0; cut <= n; cut++) {
			struct sha256 s;
			sha256_init(&s);
			sha256_update(&s, msg, cut);
			sha256_update(&s, msg + cut, n - cut);
			sha256_final(&s, parts);
			bad += memcmp(whole, parts, SHA256_BYTES) != 0;
		}
	}
	CHECK_EQ(bad, 0);
}

/* coreutils' sha256sum agrees on files around every padding edge and on
 * one of a megabyte and a bit. */
static void test_sha256sum(void)
{
	static const size_t sizes[] = { 0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 1048577 };
	char path[] = "/tmp/apstart-sha256-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	uint64_t r = 0x243F6A8885A308D3ull;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k];
		uint8_t *buf = malloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			buf[i] = (uint8_t)r;
		}
		FILE *f = fopen(path, "wb");
		CHECK(f && fwrite(buf, 1, n, f) == n);
		if (f)
			fclose(f);

		char cmd[128], line[160] = "", ours[2 * SHA256_BYTES + 1];
		uint8_t d[SHA256_BYTES];
		snprintf(cmd, sizeof cmd, "sha256sum %s", path);
		FILE *p = popen(cmd, "r");
		CHECK(p != NULL);
		if (p) {
			if (!fgets(line, sizeof line, p))
				line[0] = 0;
			pclose(p);
		}
		line[2 * SHA256_BYTES] = 0;
		sha256(buf, n, d);
		hex(d, ours);
		if (!CHECK_STREQ(ours, line))
			printf("    (a file of %zu bytes)\n", n);
		free(buf);
	}
	unlink(path);
}

void test_sha256(void)
{
	RUN_CASE(test_fips_examples);
	RUN_CASE(test_cavp_bytes);
	RUN_CASE(test_splits);
	RUN_CASE(test_sha256sum);
}
