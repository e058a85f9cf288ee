/* SPDX-License-Identifier: MIT */
/* The record schema's tables and lookups (lib/records.def), for the host
 * tools: each key's unit, writers, whether it may be `na`, its words and
 * its variants; the constants are lib/records_schema.h's. */
#ifndef APSTART_TOOLS_RECORDS_SCHEMA_H
#define APSTART_TOOLS_RECORDS_SCHEMA_H

#include "lib/records_schema.h"

enum record_unit {
	U_NS, U_SNS, U_TICKS, U_US, U_MS, U_KHZ, U_KIB, U_PCT, U_COUNT, U_ID, U_INT,
	U_BOOL, U_HEX, U_WORD, U_TEXT, U_COUNT_OF_UNITS
};

/* Who writes a key (records.def's K, L, H, V) and what it may be. */
enum record_flag {
	RF_KERNEL = 1 << 0, /* the kernel and its wings */
	RF_LINUX = 1 << 1,  /* tools/linux/hotplug */
	RF_HOST = 1 << 2,   /* tools/run's QEMU runners */
	RF_LAVA = 1 << 3,   /* tools/lab/lava/results.py */
	RF_WRITERS = 0xf,
	RF_REQ = 1 << 4,    /* readers need it */
	RF_OPT = 1 << 5,    /* its writer leaves it out at times */
	RF_NA = 1 << 6,     /* may be "na" */
};

struct record_kind {
	const char *word;    /* "@sample" */
	const char *variant; /* the key whose value picks the keys, or NULL */
	const char *what;
	uint16_t first_key;  /* its keys: record_keys[first_key..record_keys_end()) */
};

struct record_key {
	const char *name;
	uint8_t record; /* enum record_id */
	uint8_t unit;   /* enum record_unit */
	uint8_t flags;  /* enum record_flag */
	const char *words; /* blank-separated, or NULL */
	const char *only;  /* blank-separated variant words, or NULL */
};

struct record_unit_info {
	const char *name;        /* "ns" */
	const char *placeholder; /* how the docs show a value: "NS" */
	const char *what;
};

extern const struct record_kind record_kinds[RW_COUNT];
extern const struct record_key record_keys[RK_COUNT];
extern const struct record_unit_info record_units[U_COUNT_OF_UNITS];

/* One past the last key of record rec. */
int record_keys_end(int rec);
/* The record of word ("@sample", len bytes), or -1. */
int record_find(const char *word, size_t len);
/* The first key of record rec named name (len bytes), or -1. */
int record_key_find(int rec, const char *name, size_t len);
/* The key of rec named name that a record whose variant key says variant
 * (vlen bytes; NULL: none given) may have, or -1. */
int record_key_for(int rec, const char *name, size_t len, const char *variant, size_t vlen);
/* Whether key k may be in a record whose variant key says variant. */
bool record_key_applies(int k, const char *variant, size_t vlen);
/* Whether word (len bytes) is one of the blank-separated words. */
bool record_word_in(const char *words, const char *word, size_t len);

enum record_value {
	RV_OK,
	RV_EMPTY,   /* key= with nothing after it */
	RV_NA,      /* na where the key may not be na */
	RV_FORM,    /* not of the key's unit */
	RV_WORD,    /* a WORD that is not one of its words */
	RV_UNKNOWN, /* the record has no such key */
	RV_VARIANT, /* the record has it, not in this variant */
};
/* Whether v (len bytes) is a value key k may have. */
enum record_value record_value_check(int k, const char *v, size_t len);
/* Whether a record of rec whose variant key says variant (NULL: none)
 * may have name=v: one of the key's entries that applies takes it, or
 * what is wrong (the first applying entry's complaint). */
enum record_value record_field_check(int rec, const char *name, size_t len,
				     const char *variant, size_t vlen, const char *v,
				     size_t vl);

#endif
