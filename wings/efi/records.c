/* SPDX-License-Identifier: MIT */
#include "wings/efi/records.h"

static size_t text_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static bool same(const uint8_t *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i] != (uint8_t)s[i])
			return false;
	return true;
}

bool rec_text(const uint8_t *d, size_t size, const char *prefix, const char *key, char *out,
	      size_t out_len)
{
	size_t pl = text_len(prefix), kl = text_len(key);
	bool found = false;

	for (size_t at = 0; at < size;) {
		size_t len = 0;
		while (at + len < size && d[at + len] != '\n')
			len++;
		if (len >= pl && same(d + at, prefix, pl)) {
			for (size_t i = pl; i + kl <= len; i++) {
				if (d[at + i - 1] != ' ' || !same(d + at + i, key, kl))
					continue;
				size_t n = 0;
				while (i + kl + n < len && d[at + i + kl + n] != ' ' && n + 1 < out_len) {
					out[n] = (char)d[at + i + kl + n];
					n++;
				}
				out[n] = 0;
				found = true;
				break;
			}
		}
		at += len + 1;
	}
	return found;
}

bool rec_u64(const uint8_t *d, size_t size, const char *prefix, const char *key, uint64_t *out)
{
	char text[24];
	if (!rec_text(d, size, prefix, key, text, sizeof text) || !text[0])
		return false;
	uint64_t v = 0;
	for (size_t i = 0; text[i]; i++) {
		if (text[i] < '0' || text[i] > '9')
			return false;
		unsigned d = (unsigned)(text[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false; /* does not fit: never a wrapped number */
		v = v * 10 + d;
	}
	*out = v;
	return true;
}
