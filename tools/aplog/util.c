/* SPDX-License-Identifier: MIT */
/* aplog's small utilities (util.h). */
#define _POSIX_C_SOURCE 200809L
#include "tools/aplog/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void oom(void)
{
	fputs("aplog: out of memory\n", stderr);
	exit(1);
}

void *xrealloc_array(void *p, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		oom();
	void *q = realloc(p, n && size ? n * size : 1);
	if (!q)
		oom();
	return q;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			oom();
		c *= 2;
	}
	*p = xrealloc_array(*p, c, size);
	*cap = c;
}

/* Junk input must still give readable, short messages. */
const char *show(char *buf, size_t bufsz, const char *s, size_t n)
{
	const size_t limit = 48;
	size_t o = 0;

	for (size_t i = 0; i < n && i < limit && o + 5 < bufsz; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	if (n > limit && o + 24 < bufsz)
		snprintf(buf + o, bufsz - o, "...(%zu bytes)", n);
	return buf;
}

bool has_newline(const char *s)
{
	return strchr(s, '\n') || strchr(s, '\r');
}

/* No sign, no spaces; checked against max without ever overflowing. */
enum numres parse_dec(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	if (n == 0)
		return NUM_BAD;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return NUM_BAD;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > max / 10 || (v == max / 10 && d > max % 10))
			return NUM_RANGE;
		v = v * 10 + d;
	}
	*out = v;
	return NUM_OK;
}

enum numres parse_hex(const char *s, size_t n, uint64_t *out)
{
	if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return NUM_BAD;
	uint64_t v = 0;
	bool range = false;
	for (size_t i = 2; i < n; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return NUM_BAD;
		if (v > (UINT64_MAX >> 4))
			range = true;
		v = (v << 4) | d;
	}
	if (range)
		return NUM_RANGE;
	*out = v;
	return NUM_OK;
}

FILE *open_input(const char *path)
{
	if (!strcmp(path, "-"))
		return stdin;
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "aplog: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "aplog: %s: a directory, not a log (name the logs "
			"in it, e.g. %s/*.log)\n", path, path);
		fclose(f);
		return NULL;
	}
	return f;
}

/* Records are found by line; reading the whole file makes lines of any
 * length and embedded NUL bytes harmless. */
int read_all(const char *path, char **out, size_t *outlen)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = open_input(path);
	if (!f)
		return -1;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		grow((void **)&buf, &cap, len + 65536, 1);
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	bool failed = ferror(f);
	int err = errno;
	if (!is_stdin)
		fclose(f);
	if (failed) {
		fprintf(stderr, "aplog: %s: read error: %s\n", path,
			strerror(err ? err : EIO));
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
