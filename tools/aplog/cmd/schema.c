/* SPDX-License-Identifier: MIT */
/* aplog schema: the record schema (lib/records.def) one line per record
 * and variant, as docs/records.md shows it (--by: one writer's; --units:
 * what the placeholders mean), and --check: every record of some logs
 * against it, key by key and value by value (the QEMU matrix's check of
 * what the kernel prints). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

/* ---- the listing ----------------------------------------------------- */

static bool written_by(int k, unsigned by)
{
	return record_keys[k].flags & by;
}

/* The first entry of k's name that applies to variant (NULL: any) and
 * that writer by writes, or -1. */
static int entry_for(int rec, int k, const char *variant, unsigned by)
{
	const char *name = record_keys[k].name;
	for (int j = record_kinds[rec].first_key; j < record_keys_end(rec); j++)
		if (!strcmp(record_keys[j].name, name) && written_by(j, by) &&
		    (!variant || record_key_applies(j, variant, strlen(variant))))
			return j;
	return -1;
}

/* Appends s to a line being built. */
static void add(char *line, size_t cap, const char *s)
{
	size_t n = strlen(line);
	snprintf(line + n, cap - n, "%s", s);
}

/* Appends "|"-joined words. */
static void add_words(char *line, size_t cap, const char *words)
{
	for (const char *p = words; *p;) {
		size_t n = strcspn(p, " ");
		if (n) {
			char w[64];
			snprintf(w, sizeof w, "%s%.*s", line[strlen(line) - 1] == '=' ? "" : "|",
				 (int)n, p);
			add(line, cap, w);
		}
		p += n;
		p += strspn(p, " ");
	}
}

/* One record line: the keys by writes for variant (NULL: all), the
 * variant key showing shown (its words joined). */
static void print_line(int rec, const char *variant, const char *shown, unsigned by)
{
	char line[2048];
	snprintf(line, sizeof line, "%s", record_kinds[rec].word);
	const char *vname = record_kinds[rec].variant;
	for (int k = record_kinds[rec].first_key; k < record_keys_end(rec); k++) {
		if (entry_for(rec, k, NULL, ~0u) != k)
			continue; /* a name once: its first entry stands for it */
		int e = entry_for(rec, k, variant, by);
		if (e < 0)
			continue;
		const struct record_key *key = &record_keys[e];
		bool opt = key->flags & RF_OPT;
		add(line, sizeof line, opt ? " [" : " ");
		add(line, sizeof line, key->name);
		add(line, sizeof line, "=");
		if (vname && !strcmp(key->name, vname)) {
			add(line, sizeof line, shown);
		} else if (key->unit == U_WORD && key->words) {
			add_words(line, sizeof line, key->words);
		} else {
			add(line, sizeof line, record_units[key->unit].placeholder);
			if (key->words)
				add_words(line, sizeof line, key->words);
		}
		if (key->flags & RF_NA)
			add(line, sizeof line, "|na");
		if (opt)
			add(line, sizeof line, "]");
	}
	puts(line);
}

/* The keys a variant's line shows, as entry numbers: lines with the same
 * ones are printed as one. */
static void variant_keys(int rec, const char *variant, unsigned by, int *out)
{
	size_t n = 0;
	const char *vname = record_kinds[rec].variant;
	for (int k = record_kinds[rec].first_key; k < record_keys_end(rec); k++)
		if (entry_for(rec, k, NULL, ~0u) == k && strcmp(record_keys[k].name, vname))
			out[n++] = entry_for(rec, k, variant, by);
	out[n] = -2;
}

static void print_record(int rec, unsigned by)
{
	bool any = false;
	for (int k = record_kinds[rec].first_key; k < record_keys_end(rec); k++)
		any |= written_by(k, by);
	if (!any)
		return;
	const char *vname = record_kinds[rec].variant;
	if (!vname) {
		print_line(rec, NULL, NULL, by);
		return;
	}
	/* Each word of the variant key (of the entries by writes), in order;
	 * neighbours with the same keys on one line, their words joined. */
	char words[1024] = "";
	int vk = record_key_find(rec, vname, strlen(vname));
	for (int k = vk; k < record_keys_end(rec); k++)
		if (!strcmp(record_keys[k].name, vname) && written_by(k, by)) {
			add(words, sizeof words, " ");
			add(words, sizeof words, record_keys[k].words);
		}
	static int cur[RK_COUNT + 1], next[RK_COUNT + 1];
	char shown[512] = "", first[64] = "";
	for (const char *p = words;;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		char w[64] = "";
		if (n)
			snprintf(w, sizeof w, "%.*s", (int)n, p);
		if (n)
			variant_keys(rec, w, by, next);
		if (shown[0] && (!n || memcmp(cur, next, sizeof cur))) {
			print_line(rec, first, shown, by);
			shown[0] = '\0';
		}
		if (!n)
			break;
		if (!shown[0])
			snprintf(first, sizeof first, "%s", w);
		add(shown, sizeof shown, shown[0] ? "|" : "");
		add(shown, sizeof shown, w);
		memcpy(cur, next, sizeof cur);
		p += n;
	}
}

static unsigned writer_bits(const char *by)
{
	static const struct { const char *name; unsigned bits; } writers[] = {
		{ "kernel", RF_KERNEL }, { "linux-hotplug", RF_LINUX },
		{ "host", RF_HOST }, { "lava", RF_LAVA },
	};
	if (!by)
		return RF_WRITERS;
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
		if (!strcmp(by, writers[i].name))
			return writers[i].bits;
	usage_error("--by %s: expected kernel, linux-hotplug, host or lava", by);
}

static int list(void)
{
	unsigned by = writer_bits(cli.by);
	if (cli.given & O_UNITS) {
		for (int u = 0; u < U_COUNT_OF_UNITS; u++)
			printf("%-6s %s\n", record_units[u].placeholder, record_units[u].what);
		return 0;
	}
	if (!cli.nfiles[0]) {
		for (int r = 0; r < RW_COUNT; r++)
			print_record(r, by);
		return 0;
	}
	for (size_t i = 0; i < cli.nfiles[0]; i++) {
		char word[64];
		const char *w = cli.files[0][i];
		snprintf(word, sizeof word, "%s%s", w[0] == '@' ? "" : "@", w);
		int r = record_find(word, strlen(word));
		if (r < 0)
			usage_error("no record %s in the schema", word);
		print_record(r, by);
	}
	return 0;
}

/* ---- the check ------------------------------------------------------- */

static const char *value_problem(enum record_value v)
{
	switch (v) {
	case RV_EMPTY: return "is empty";
	case RV_NA: return "may not be na";
	case RV_FORM: return "is not";
	case RV_WORD: return "is none of";
	case RV_VARIANT: return "is not a key of";
	default: return "is not in the schema";
	}
}

/* What schema key name's value should be, for a message. */
static void expected(char *out, size_t cap, int rec, const char *name, size_t len)
{
	int k = record_key_find(rec, name, len);
	const struct record_key *key = &record_keys[k];
	out[0] = '\0';
	if (key->unit == U_WORD && key->words) {
		for (; k < record_keys_end(rec); k++)
			if (strlen(record_keys[k].name) == len &&
			    !memcmp(record_keys[k].name, name, len) && record_keys[k].words) {
				add(out, cap, out[0] ? " " : "");
				add(out, cap, record_keys[k].words);
			}
		for (char *p = out; *p; p++)
			if (*p == ' ')
				*p = '|';
	} else {
		snprintf(out, cap, "%s (%s)", record_units[key->unit].name,
			 record_units[key->unit].what);
	}
}

/* Every field of one record line, and its required keys. */
static void check_record(struct msgs *m, size_t line, const struct record *r)
{
	char b[256], k[80], want[512];
	const char *vname = record_kinds[r->id].variant;
	const struct field *vf = vname ? rec_named(r, vname) : NULL;
	char variant[64] = "";
	if (vf)
		snprintf(variant, sizeof variant, "%s=%.*s", vname, (int)vf->vl, vf->v);
	for (size_t i = 0; i < r->n; i++) {
		const struct field *f = &r->f[i];
		enum record_value res = record_field_check(r->id, f->k, f->kl, vf ? vf->v : NULL,
							   vf ? vf->vl : 0, f->v, f->vl);
		show(k, sizeof k, f->k, f->kl);
		if (res == RV_OK)
			continue;
		if (res == RV_UNKNOWN)
			lerr(m, line, "%s: key '%s' is not in the schema", r->word, k);
		else if (res == RV_VARIANT)
			lerr(m, line, "%s: key '%s' is not a key of %s records", r->word, k,
			     variant);
		else if (res == RV_FORM || res == RV_WORD) {
			expected(want, sizeof want, r->id, f->k, f->kl);
			lerr(m, line, "%s: %s=%s %s %s", r->word, k,
			     show(b, sizeof b, f->v, f->vl), value_problem(res), want);
		} else {
			lerr(m, line, "%s: %s=%s %s", r->word, k, show(b, sizeof b, f->v, f->vl),
			     value_problem(res));
		}
	}
	need_required(m, line, r);
}

/* A line that starts like a record: '@' and a word of [a-z0-9_]. */
static bool record_like(const char *p, size_t n, size_t *w)
{
	*w = 1;
	while (*w < n && ((p[*w] >= 'a' && p[*w] <= 'z') || (p[*w] >= '0' && p[*w] <= '9') ||
			  p[*w] == '_'))
		(*w)++;
	return n > 1 && p[0] == '@' && *w > 1 && (*w == n || p[*w] == ' ');
}

static int check_file(const char *path)
{
	char *buf, b[64];
	size_t len, pos = 0, line = 0, n, records = 0;
	if (read_all(path, &buf, &len))
		return 1;
	struct msgs m = { .file = strcmp(path, "-") ? path : "<stdin>" };
	static struct record r;
	while (pos < len) {
		const char *p = next_line(buf, len, &pos, &n);
		size_t w;
		line++;
		if (!record_like(p, n, &w))
			continue;
		records++;
		m.quiet = m.errors >= MAX_ERRORS_PER_FILE; /* counted, not all said */
		if (record_find(p, w) < 0) {
			lerr(&m, line, "record %s is not in the schema", show(b, sizeof b, p, w));
			continue;
		}
		if (record_parse(&m, line, p, n, &r))
			check_record(&m, line, &r);
	}
	free(buf);
	if (m.errors > MAX_ERRORS_PER_FILE)
		fprintf(stderr, "aplog: %s: %d more problems not said\n", m.file,
			m.errors - MAX_ERRORS_PER_FILE);
	if (m.errors)
		printf("FAIL: %s: %d problem%s in %zu records\n", m.file, m.errors,
		       m.errors == 1 ? "" : "s", records);
	else
		printf("OK: %s: %zu records, every key in the schema\n", m.file, records);
	return m.errors ? 1 : 0;
}

static int check(void)
{
	if (!cli.nfiles[0])
		usage_error("schema --check needs LOG...");
	int rc = 0;
	for (size_t i = 0; i < cli.nfiles[0]; i++)
		rc |= check_file(cli.files[0][i]);
	return rc;
}

int cmd_schema(void)
{
	if ((cli.given & O_CHECK) && (cli.given & (O_BY | O_UNITS)))
		usage_error("schema --check takes LOG... only");
	return cli.given & O_CHECK ? check() : list();
}
