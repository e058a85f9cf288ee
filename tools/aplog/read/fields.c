/* SPDX-License-Identifier: MIT */
/* The tokenizer of records.h: lines, messages, and key=value records
 * checked field by field (shared with the baseline file parser). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
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
		r->f[r->n++] = (struct field){ t, t + kl + 1, kl, tl - kl - 1 };
	}
}

const struct field *rec_get(const struct record *r, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].kl == kl && memcmp(r->f[i].k, key, kl) == 0)
			return &r->f[i];
	return NULL;
}

bool need_keys(struct msgs *m, size_t line, const struct record *r,
	       const char *const *keys)
{
	char missing[512] = "";
	size_t o = 0;
	for (; *keys; keys++) {
		if (rec_get(r, *keys))
			continue;
		o += (size_t)snprintf(missing + o, sizeof(missing) - o, "%s%s",
				      o ? ", " : "", *keys);
		if (o >= sizeof(missing))
			o = sizeof(missing) - 1;
	}
	if (o)
		lerr(m, line, "%s: missing key(s): %s", r->word, missing);
	return o == 0;
}

bool get_num(struct msgs *m, size_t line, const struct record *r,
	     const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	enum numres res = parse_dec(f->v, f->vl, max, out);

	if (res == NUM_BAD) {
		lerr(m, line, "%s: %s=%s is not a decimal number", r->word, key,
		     show(b, sizeof(b), f->v, f->vl));
		return false;
	}
	if (res == NUM_RANGE || *out < min) {
		lerr(m, line, "%s: %s=%s out of range (%" PRIu64 "..%" PRIu64 ")",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), min, max);
		return false;
	}
	return true;
}

bool get_choice(struct msgs *m, size_t line, const struct record *r,
		const char *key, const char *const *choices, int *out)
{
	char b[256];
	const struct field *f = rec_get(r, key);
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
	lerr(m, line, "%s: %s=%s must be %s", r->word, key,
	     show(b, sizeof(b), f->v, f->vl), list);
	return false;
}

bool get_text(struct msgs *m, size_t line, const struct record *r,
	      const char *key, char *dst, size_t cap)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	bool ok = f->vl > 0 && f->vl < cap;
	for (size_t i = 0; ok && i < f->vl; i++)
		ok = f->v[i] > 0x20 && f->v[i] < 0x7f;
	if (!ok) {
		lerr(m, line, "%s: %s=%s must be 1..%zu printable characters",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), cap - 1);
		return false;
	}
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
	return true;
}

bool get_str(struct msgs *m, size_t line, const struct record *r,
	     const char *key, char *dst)
{
	return get_text(m, line, r, key, dst, STR_MAX);
}
