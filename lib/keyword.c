/* SPDX-License-Identifier: MIT */
#include "lib/keyword.h"

const char *keyword_word(const struct keyword *table, uint32_t value)
{
	for (const struct keyword *k = table; k->word; k++)
		if (k->value == value)
			return k->word;
	return "?";
}

bool keyword_value(const struct keyword *table, const char *s, size_t n, uint32_t *value)
{
	for (const struct keyword *k = table; k->word; k++) {
		size_t i = 0;
		while (i < n && k->word[i] == s[i]) /* also stops at the word's NUL */
			i++;
		if (i == n && k->word[i] == '\0') {
			*value = k->value;
			return true;
		}
	}
	return false;
}
