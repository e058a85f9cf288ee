/* SPDX-License-Identifier: MIT */
/* The record schema's tables (lib/records.def) and lookups. Not linked into
 * the kernel, which names records by the header's constants only. */
#include "tools/records/schema.h"

#include "lib/kstring.h"

const struct record_unit_info record_units[U_COUNT_OF_UNITS] = {
	[U_NS] = { "ns", "NS", "nanoseconds" },
	[U_SNS] = { "sns", "SNS", "signed nanoseconds (negative: behind)" },
	[U_TICKS] = { "ticks", "TICKS", "TSC ticks" },
	[U_US] = { "us", "US", "microseconds" },
	[U_MS] = { "ms", "MS", "milliseconds" },
	[U_KHZ] = { "khz", "KHZ", "kHz" },
	[U_KIB] = { "kib", "KIB", "KiB" },
	[U_PCT] = { "pct", "PCT", "percent" },
	[U_COUNT] = { "count", "N", "how many" },
	[U_ID] = { "id", "ID", "a number that names something: CPU index, APIC ID, cycle, "
				"vector, stage" },
	[U_INT] = { "int", "INT", "a signed number" },
	[U_BOOL] = { "bool", "0|1", "0 or 1" },
	[U_HEX] = { "hex", "0xHEX", "a hexadecimal number after 0x" },
	[U_WORD] = { "word", "WORD", "one of its words; without a list, a lowercase token" },
	[U_TEXT] = { "text", "TEXT", "printable characters, no blank" },
};

/* records.def's flags, for the tables below only. */
#define K RF_KERNEL
#define L RF_LINUX
#define H RF_HOST
#define V RF_LAVA
#define REQ RF_REQ
#define OPT RF_OPT
#define NA RF_NA

const struct record_kind record_kinds[RW_COUNT] = {
#define RECORD(word, variant, what) \
	[RW_##word] = { "@" #word, variant, what, RK_##word##__begin },
#define KEY(rec, key, unit, flags, words, only)
#define KEYV(rec, key, tag, unit, flags, words, only)
#include "lib/records.def"
#undef RECORD
#undef KEY
#undef KEYV
};

const struct record_key record_keys[RK_COUNT] = {
#define RECORD(word, variant, what)
#define KEY(rec, key, unit, flags, words, only) \
	[RK_##rec##_##key] = { #key, RW_##rec, U_##unit, (flags), words, only },
#define KEYV(rec, key, tag, unit, flags, words, only) \
	[RK_##rec##_##key##_##tag] = { #key, RW_##rec, U_##unit, (flags), words, only },
#include "lib/records.def"
#undef RECORD
#undef KEY
#undef KEYV
};

#undef K
#undef L
#undef H
#undef V
#undef REQ
#undef OPT
#undef NA

/* A record's keys run from its first_key to the next record's. */
int record_keys_end(int rec)
{
	return rec + 1 < RW_COUNT ? record_kinds[rec + 1].first_key : RK_COUNT;
}

static bool same(const char *s, const char *p, size_t n)
{
	return strlen(s) == n && memcmp(s, p, n) == 0;
}

int record_find(const char *word, size_t len)
{
	for (int r = 0; r < RW_COUNT; r++)
		if (same(record_kinds[r].word, word, len))
			return r;
	return -1;
}

int record_key_find(int rec, const char *name, size_t len)
{
	if (rec < 0 || rec >= RW_COUNT)
		return -1;
	for (int k = record_kinds[rec].first_key; k < record_keys_end(rec); k++)
		if (same(record_keys[k].name, name, len))
			return k;
	return -1;
}

bool record_word_in(const char *words, const char *word, size_t len)
{
	for (const char *p = words; p && *p;) {
		while (*p == ' ')
			p++;
		size_t n = 0;
		while (p[n] && p[n] != ' ')
			n++;
		if (n && n == len && memcmp(p, word, n) == 0)
			return true;
		p += n;
	}
	return false;
}

bool record_key_applies(int k, const char *variant, size_t vlen)
{
	const char *only = record_keys[k].only;
	return !only || (variant && record_word_in(only, variant, vlen));
}

int record_key_for(int rec, const char *name, size_t len, const char *variant, size_t vlen)
{
	if (rec < 0 || rec >= RW_COUNT)
		return -1;
	for (int k = record_kinds[rec].first_key; k < record_keys_end(rec); k++)
		if (same(record_keys[k].name, name, len) &&
		    (!variant || record_key_applies(k, variant, vlen)))
			return k;
	return -1;
}

static bool digits(const char *v, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (v[i] < '0' || v[i] > '9')
			return false;
	return true;
}

static bool hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool of_unit(enum record_unit u, const char *v, size_t len)
{
	switch (u) {
	case U_SNS:
	case U_INT:
		return len > 1 && v[0] == '-' ? digits(v + 1, len - 1) : digits(v, len);
	case U_BOOL:
		return len == 1 && (v[0] == '0' || v[0] == '1');
	case U_HEX:
		if (len < 3 || v[0] != '0' || v[1] != 'x')
			return false;
		for (size_t i = 2; i < len; i++)
			if (!hex_digit(v[i]))
				return false;
		return true;
	case U_WORD:
		for (size_t i = 0; i < len; i++) {
			char c = v[i];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
			      c == '-'))
				return false;
		}
		return true;
	case U_TEXT:
		for (size_t i = 0; i < len; i++)
			if (v[i] <= ' ' || v[i] >= 0x7f)
				return false;
		return true;
	default:
		return digits(v, len);
	}
}

enum record_value record_value_check(int k, const char *v, size_t len)
{
	const struct record_key *key = &record_keys[k];
	if (!len)
		return RV_EMPTY;
	if (len == 2 && v[0] == 'n' && v[1] == 'a' && !record_word_in(key->words, v, len))
		return key->flags & RF_NA ? RV_OK : RV_NA;
	if (key->unit == U_WORD && key->words)
		return record_word_in(key->words, v, len) ? RV_OK : RV_WORD;
	if (key->words && record_word_in(key->words, v, len))
		return RV_OK;
	return of_unit(key->unit, v, len) ? RV_OK : RV_FORM;
}

enum record_value record_field_check(int rec, const char *name, size_t len,
				     const char *variant, size_t vlen, const char *v,
				     size_t vl)
{
	enum record_value first = RV_UNKNOWN;
	int k = record_key_find(rec, name, len);
	if (k < 0)
		return RV_UNKNOWN;
	for (; k < record_keys_end(rec); k++) {
		if (!same(record_keys[k].name, name, len) ||
		    (variant && !record_key_applies(k, variant, vlen)))
			continue;
		enum record_value res = record_value_check(k, v, vl);
		if (res == RV_OK)
			return RV_OK;
		if (first == RV_UNKNOWN)
			first = res;
	}
	return first == RV_UNKNOWN ? RV_VARIANT : first;
}
