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

/* Where the whole field f (fl bytes) starts in the line's fields, or 0. */
static size_t field_at(const uint8_t *l, size_t len, size_t from, const char *f, size_t fl)
{
	for (size_t i = from; i + fl <= len; i++)
		if (l[i - 1] == ' ' && same(l + i, f, fl) && (i + fl == len || l[i + fl] == ' ' ||
							       f[fl - 1] == '='))
			return i;
	return 0;
}

bool rec_text(const uint8_t *d, size_t size, const char *word, const char *where,
	      const char *key, char *out, size_t out_len)
{
	size_t wl = text_len(word), kl = text_len(key);
	bool found = false;
	char k[48]; /* "key=" */
	if (kl + 2 > sizeof k)
		return false;
	for (size_t i = 0; i < kl; i++)
		k[i] = key[i];
	k[kl++] = '=';
	k[kl] = 0;

	for (size_t at = 0; at < size;) {
		size_t len = 0;
		while (at + len < size && d[at + len] != '\n')
			len++;
		const uint8_t *l = d + at;
		size_t i;
		if (len > wl && same(l, word, wl) && l[wl] == ' ' &&
		    (!where || field_at(l, len, wl + 1, where, text_len(where))) &&
		    (i = field_at(l, len, wl + 1, k, kl))) {
			size_t n = 0;
			while (i + kl + n < len && l[i + kl + n] != ' ' && n + 1 < out_len) {
				out[n] = (char)l[i + kl + n];
				n++;
			}
			out[n] = 0;
			found = true;
		}
		at += len + 1;
	}
	return found;
}

bool rec_u64(const uint8_t *d, size_t size, const char *word, const char *where,
	     const char *key, uint64_t *out)
{
	char text[24];
	if (!rec_text(d, size, word, where, key, text, sizeof text) || !text[0])
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
