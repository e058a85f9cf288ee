/* SPDX-License-Identifier: MIT */
/* A mode's words: one table per mode, {word, value} rows ended by
 * { NULL, 0 }. The command line parses them and every record, screen and
 * message prints them from the same table, so a mode has one spelling. */
#ifndef APSTART_KEYWORD_H
#define APSTART_KEYWORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct keyword {
	const char *word;
	uint32_t value;
};

/* The word for value, or "?" if the table has none. */
const char *keyword_word(const struct keyword *table, uint32_t value);
/* The value whose word is s[0..n) (not NUL-terminated): true and *value
 * set, or false. */
bool keyword_value(const struct keyword *table, const char *s, size_t n, uint32_t *value);

#endif
