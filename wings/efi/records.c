/* SPDX-License-Identifier: MIT */
#include "wings/efi/records.h"

#include <efilib.h>

BOOLEAN rec_text(const UINT8 *d, UINTN size, const char *prefix, const char *key, char *out,
		 UINTN out_len)
{
	UINTN pl = strlena((CHAR8 *)prefix), kl = strlena((CHAR8 *)key);
	BOOLEAN found = FALSE;

	for (UINTN at = 0; at < size;) {
		UINTN len = 0;
		while (at + len < size && d[at + len] != '\n')
			len++;
		if (len >= pl && CompareMem(d + at, prefix, pl) == 0) {
			for (UINTN i = pl; i + kl <= len; i++) {
				if (d[at + i - 1] != ' ' || CompareMem(d + at + i, key, kl))
					continue;
				UINTN n = 0;
				while (i + kl + n < len && d[at + i + kl + n] != ' ' && n + 1 < out_len) {
					out[n] = (char)d[at + i + kl + n];
					n++;
				}
				out[n] = 0;
				found = TRUE;
				break;
			}
		}
		at += len + 1;
	}
	return found;
}

BOOLEAN rec_u64(const UINT8 *d, UINTN size, const char *prefix, const char *key, UINT64 *out)
{
	char text[24];
	if (!rec_text(d, size, prefix, key, text, sizeof text) || !text[0])
		return FALSE;
	UINT64 v = 0;
	for (UINTN i = 0; text[i]; i++) {
		if (text[i] < '0' || text[i] > '9')
			return FALSE;
		v = v * 10 + (UINT64)(text[i] - '0');
	}
	*out = v;
	return TRUE;
}
