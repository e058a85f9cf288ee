/* SPDX-License-Identifier: MIT */
/* The tokenizer of records.h: lines, messages, and key=value records
 * checked field by field (shared with the baseline file parser). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/loader.h"
#include "tools/aplog/util.h"

const char *next_line(const char *buf, size_t len, size_t *pos, size_t *n)
{
	const char *p = buf + *pos;
	const char *nl = memchr(p, '\n', len - *pos);
	*n = nl ? (size_t)(nl - p) : len - *pos;
	*pos += *n + (nl != NULL);
	while (*n && p[*n - 1] == '\r')
		(*n)--;
	return p;
}

/* ------------------------------------------------------------------ */

/* Messages and key=value records                                      */

static void lmsg(struct msgs *m, size_t line, bool warning, const char *fmt,
		 va_list ap)
{
	if (m->quiet && !warning)
		return;
	fprintf(stderr, "aplog: %s:%zu: %s", m->file, line, warning ? "warning: " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void lerr(struct msgs *m, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(m, line, false, fmt, ap);
	va_end(ap);
	m->errors++;
}

void lwarn(struct msgs *m, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(m, line, true, fmt, ap);
	va_end(ap);
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

size_t key_len(const char *p, size_t n)
{
	const char *eq = memchr(p, '=', n);
	size_t kl = eq ? (size_t)(eq - p) : 0;
	for (size_t i = 0; i < kl; i++)
		if (!key_char(p[i]))
			return 0;
	return kl;
}

bool split_fields(struct msgs *m, size_t line, const char *word,
		  const char *p, size_t n, struct record *r)
{
	char b1[256];
	size_t i = 0;

	r->id = -1;
	r->word = word;
	r->n = 0;
	for (;;) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == n)
			return true;
		size_t start = i;
		while (i < n && p[i] != ' ' && p[i] != '\t')
			i++;
		const char *t = p + start;
		size_t tl = i - start;
		size_t kl = key_len(t, tl);
		if (!kl) {
			lerr(m, line, "%s: malformed field '%s' (expected key=value)",
			     word, show(b1, sizeof(b1), t, tl));
			return false;
		}
		for (size_t j = 0; j < r->n; j++) {
			if (r->f[j].kl == kl && memcmp(r->f[j].k, t, kl) == 0) {
				lerr(m, line, "%s: duplicate key '%s'", word,
				     show(b1, sizeof(b1), t, kl));
				return false;
			}
		}
		if (r->n == MAX_FIELDS) {
			lerr(m, line, "%s: more than %d fields", word, MAX_FIELDS);
			return false;
		}
		r->f[r->n++] = (struct field){ t, t + kl + 1, kl, tl - kl - 1, -1 };
	}
}

/* A key the schema lacks, said once per file and key (the first few). */
static void unknown_key(struct msgs *m, size_t line, const struct record *r,
			const struct field *f)
{
	char said[48], b[64];
	snprintf(said, sizeof said, "%s %.*s", r->word, (int)(f->kl < 32 ? f->kl : 32), f->k);
	unsigned n = m->unknown_keys < UNKNOWN_KEYS_SAID ? m->unknown_keys : UNKNOWN_KEYS_SAID;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(m->unknown_said[i], said))
			return;
	if (m->unknown_keys < UNKNOWN_KEYS_SAID) {
		memcpy(m->unknown_said[m->unknown_keys], said, sizeof said);
		lwarn(m, line, "%s: key '%s' is not in the record schema (a newer or "
		      "older writer's? aplog schema %s): ignored", r->word,
		      show(b, sizeof b, f->k, f->kl), r->word + 1);
	} else if (m->unknown_keys == UNKNOWN_KEYS_SAID) {
		lwarn(m, line, "more keys the record schema lacks: not said");
	}
	m->unknown_keys++;
}

bool record_parse(struct msgs *m, size_t line, const char *p, size_t n,
		  struct record *r)
{
	size_t w = 1;
	while (w < n && p[w] != ' ' && p[w] != '\t')
		w++;
	int id = n && p[0] == '@' ? record_find(p, w) : -1;
	if (id < 0)
		return false;
	if (!split_fields(m, line, record_kinds[id].word, p + w, n - w, r))
		return false;
	r->id = id;
	for (size_t i = 0; i < r->n; i++) {
		struct field *f = &r->f[i];
		f->key = record_key_find(id, f->k, f->kl);
		if (f->key < 0 && m->schema_warn)
			unknown_key(m, line, r, f);
	}
	return true;
}

const struct field *rec_named(const struct record *r, const char *name)
{
	size_t kl = strlen(name);
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].kl == kl && memcmp(r->f[i].k, name, kl) == 0)
			return &r->f[i];
	return NULL;
}

const struct field *rec_get(const struct record *r, int k)
{
	if (k < 0 || k >= RK_COUNT || record_keys[k].record != r->id) {
		fprintf(stderr, "aplog: internal error: key %d asked of %s\n", k, r->word);
		abort();
	}
	/* A field carries the first entry of its name (record_key_find()). */
	int first = record_key_find(r->id, record_keys[k].name, strlen(record_keys[k].name));
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].key == first)
			return &r->f[i];
	return NULL;
}

/* Appends name to the list of missing keys. */
static void add_missing(char *missing, size_t cap, size_t *o, const char *name)
{
	*o += (size_t)snprintf(missing + *o, cap - *o, "%s%s", *o ? ", " : "", name);
	if (*o >= cap)
		*o = cap - 1;
}

bool need_keys(struct msgs *m, size_t line, const struct record *r,
	       const char *const *keys)
{
	char missing[512] = "";
	size_t o = 0;
	for (; *keys; keys++)
		if (!rec_named(r, *keys))
			add_missing(missing, sizeof missing, &o, *keys);
	if (o)
		lerr(m, line, "%s: missing key(s): %s", r->word, missing);
	return o == 0;
}

bool need_required(struct msgs *m, size_t line, const struct record *r)
{
	char missing[512] = "";
	size_t o = 0;
	const char *variant = record_kinds[r->id].variant;
	const struct field *vf = variant ? rec_named(r, variant) : NULL;
	for (int k = record_kinds[r->id].first_key; k < record_keys_end(r->id); k++) {
		if (!(record_keys[k].flags & RF_REQ) ||
		    (record_keys[k].only && !(vf && record_key_applies(k, vf->v, vf->vl))) ||
		    rec_get(r, k))
			continue;
		add_missing(missing, sizeof missing, &o, record_keys[k].name);
	}
	if (o)
		lerr(m, line, "%s: missing key(s): %s", r->word, missing);
	return o == 0;
}

/* "key", cut to fit, for messages. */
static const char *key_of(char *b, size_t size, const struct field *f)
{
	return show(b, size, f->k, f->kl);
}

bool field_num(struct msgs *m, size_t line, const struct record *r,
	       const struct field *f, uint64_t min, uint64_t max, uint64_t *out)
{
	char b[256], k[80];
	enum numres res = parse_dec(f->v, f->vl, max, out);

	if (res == NUM_BAD) {
		lerr(m, line, "%s: %s=%s is not a decimal number", r->word,
		     key_of(k, sizeof k, f), show(b, sizeof(b), f->v, f->vl));
		return false;
	}
	if (res == NUM_RANGE || *out < min) {
		lerr(m, line, "%s: %s=%s out of range (%" PRIu64 "..%" PRIu64 ")",
		     r->word, key_of(k, sizeof k, f), show(b, sizeof(b), f->v, f->vl),
		     min, max);
		return false;
	}
	return true;
}

bool field_choice(struct msgs *m, size_t line, const struct record *r,
		  const struct field *f, const char *const *choices, int *out)
{
	char b[256], k[80];
	for (int i = 0; choices[i]; i++) {
		if (strlen(choices[i]) == f->vl &&
		    memcmp(choices[i], f->v, f->vl) == 0) {
			*out = i;
			return true;
		}
	}
	char list[128] = "";
	size_t o = 0;
	for (int i = 0; choices[i] && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? "|" : "", choices[i]);
	lerr(m, line, "%s: %s=%s must be %s", r->word, key_of(k, sizeof k, f),
	     show(b, sizeof(b), f->v, f->vl), list);
	return false;
}

bool field_text(struct msgs *m, size_t line, const struct record *r,
		const struct field *f, char *dst, size_t cap)
{
	char b[256], k[80];
	bool ok = f->vl > 0 && f->vl < cap;
	for (size_t i = 0; ok && i < f->vl; i++)
		ok = f->v[i] > 0x20 && f->v[i] < 0x7f;
	if (!ok) {
		lerr(m, line, "%s: %s=%s must be 1..%zu printable characters",
		     r->word, key_of(k, sizeof k, f), show(b, sizeof(b), f->v, f->vl),
		     cap - 1);
		return false;
	}
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
	return true;
}

bool get_num(struct msgs *m, size_t line, const struct record *r, int k,
	     uint64_t min, uint64_t max, uint64_t *out)
{
	return field_num(m, line, r, rec_get(r, k), min, max, out);
}

bool get_choice(struct msgs *m, size_t line, const struct record *r, int k,
		const char *const *choices, int *out)
{
	return field_choice(m, line, r, rec_get(r, k), choices, out);
}

bool get_text(struct msgs *m, size_t line, const struct record *r, int k,
	      char *dst, size_t cap)
{
	return field_text(m, line, r, rec_get(r, k), dst, cap);
}

bool get_str(struct msgs *m, size_t line, const struct record *r, int k, char *dst)
{
	return get_text(m, line, r, k, dst, STR_MAX);
}

bool rec_num(const struct record *r, int k, uint64_t max, uint64_t *out)
{
	const struct field *f = rec_get(r, k);
	return f && parse_dec(f->v, f->vl, max, out) == NUM_OK;
}

bool rec_is(const struct record *r, int k, const char *val)
{
	const struct field *f = rec_get(r, k);
	return f && f->vl == strlen(val) && !memcmp(f->v, val, f->vl);
}

void rec_copy(const struct record *r, int k, char *dst, size_t size)
{
	const struct field *f = rec_get(r, k);
	size_t n = f ? (f->vl < size ? f->vl : size - 1) : 0;
	for (size_t i = 0; i < n; i++)
		dst[i] = f->v[i] > ' ' && f->v[i] < 0x7f ? f->v[i] : '?';
	dst[n] = '\0';
}
