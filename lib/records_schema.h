/* SPDX-License-Identifier: MIT */
/* The record schema (lib/records.def) in C: every record word and key as a
 * constant and macro, for the kernel, apstart.efi and the host tools
 * alike: they cost nothing in an image. The tables that say each key's
 * unit, whether it may be `na`, its words and its variants are the host's
 * (tools/records/schema.h).
 *
 * In code that reads or matches records, name them by the schema:
 *   RECORD_WORD(sample)    "@sample", and a build error if there is none
 *   RECORD_KEY(sample, ns) "ns", and a build error if @sample has no ns
 *   RECORD_FIELD(sample, op, "online")  "op=online", the same
 *   RK_sample_ns           the key's index in the host's record_keys[] */
#ifndef APSTART_RECORDS_SCHEMA_H
#define APSTART_RECORDS_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum record_id {
#define RECORD(word, variant, what) RW_##word,
#define KEY(rec, key, unit, flags, words, only)
#define KEYV(rec, key, tag, unit, flags, words, only)
#include "lib/records.def"
#undef RECORD
#undef KEY
#undef KEYV
	RW_COUNT
};

/* Keys follow their record: RK_word__begin is the first key of word
 * (the __rewind constant puts the next key on the same number). */
enum record_key_id {
#define RECORD(word, variant, what) RK_##word##__begin, RK_##word##__rewind = RK_##word##__begin - 1,
#define KEY(rec, key, unit, flags, words, only) RK_##rec##_##key,
#define KEYV(rec, key, tag, unit, flags, words, only) RK_##rec##_##key##_##tag,
#include "lib/records.def"
#undef RECORD
#undef KEY
#undef KEYV
	RK_COUNT
};

/* The word with its '@', the key's name, and a whole field ("op=offline"),
 * as string constants that only compile when the schema has them. */
#define RECORD_WORD(word) ((void)RW_##word, "@" #word)
#define RECORD_KEY(word, key) ((void)RK_##word##_##key, #key)
#define RECORD_FIELD(word, key, value) ((void)RK_##word##_##key, #key "=" value)

/* Whether a line (len bytes) is a record of word ("@warn ..."):
 * record_line_is(l, len, RECORD_WORD(warn)). */
static inline bool record_line_is(const char *line, size_t len, const char *word)
{
	size_t n = __builtin_strlen(word);
	return len > n && __builtin_memcmp(line, word, n) == 0 && line[n] == ' ';
}

#endif
