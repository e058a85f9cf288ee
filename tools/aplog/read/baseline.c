/* SPDX-License-Identifier: MIT */
/* Baseline file parser (baseline.h). */
#define _POSIX_C_SOURCE 200809L
#include "tools/aplog/read/baseline.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

void baseline_free(struct baseline *b)
{
	for (size_t i = 0; i < b->nh; i++) {
		free(b->h[i].key);
		free(b->h[i].val);
	}
	free(b->h);
	free(b->e);
	memset(b, 0, sizeof(*b));
}

int cmp_bl(const void *x, const void *y)
{
	const struct bl_entry *a = x, *b = y;
	if (a->apic != b->apic)
		return a->apic < b->apic ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

const char *bl_header(const struct baseline *b, const char *key)
{
	for (size_t i = 0; i < b->nh; i++)
		if (!strcmp(b->h[i].key, key))
			return b->h[i].val;
	return NULL;
}

static void on_entry(struct baseline *b, struct msgs *m, size_t line,
		     const char *p, size_t n)
{
	static const char *const keys[] = { "apic", "op", "median_ns", NULL };
	static struct record rec;
	uint64_t apic, med;
	int op;
	if (!split_fields(m, line, "baseline entry", p, n, &rec) ||
	    !need_keys(m, line, &rec, keys) ||
	    !field_num(m, line, &rec, rec_named(&rec, "apic"), 0, UINT32_MAX, &apic) ||
	    !field_choice(m, line, &rec, rec_named(&rec, "op"), op_choices, &op) ||
	    !field_num(m, line, &rec, rec_named(&rec, "median_ns"), 0, NS_MAX, &med))
		return;
	grow((void **)&b->e, &b->cap, b->n + 1, sizeof(*b->e));
	b->e[b->n++] = (struct bl_entry){ (uint32_t)apic, (uint8_t)op, med,
					  line };
}

/* Header: key=value, the value runs to the end of the line. */
static void on_header(struct baseline *b, struct msgs *m, size_t line,
		      const char *p, size_t n)
{
	char sb[256];
	size_t kl = key_len(p, n);
	if (!kl) {
		lerr(m, line, "expected key=value or apic=A op=... median_ns=T, "
		     "got '%s'", show(sb, sizeof(sb), p, n));
		return;
	}
	char *key = strndup(p, kl), *val = strndup(p + kl + 1, n - kl - 1);
	if (!key || !val)
		oom();
	if (bl_header(b, key)) {
		lerr(m, line, "duplicate header '%s'", key);
		free(key);
		free(val);
		return;
	}
	grow((void **)&b->h, &b->caph, b->nh + 1, sizeof(*b->h));
	b->h[b->nh++] = (struct bl_header){ key, val };
	if (!strcmp(key, "tolerance_pct")) {
		char *end;
		errno = 0;
		double d = strtod(val, &end);
		if (!*val || *end || errno || !isfinite(d) || d < 0 || d > 1000)
			lerr(m, line, "tolerance_pct=%s: expected a number in "
			     "0..1000", show(sb, sizeof(sb), val, strlen(val)));
		b->has_tol = true;
		b->tol = d;
	} else if (!strcmp(key, "wbinvd")) {
		b->wbinvd = !strcmp(val, "1") ? 1 : !strcmp(val, "0") ? 0 : -1;
	}
}

int baseline_load(struct baseline *b, const char *path)
{
	char *buf;
	size_t len;

	memset(b, 0, sizeof(*b));
	b->file = path;
	b->wbinvd = -1;
	if (read_all(path, &buf, &len) != 0)
		return 1;
	struct msgs m = { .file = path };
	size_t pos = 0, line = 0;
	while (pos < len && m.errors < MAX_ERRORS_PER_FILE) {
		line++;
		size_t n;
		const char *p = next_line(buf, len, &pos, &n);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (n == 0 || *p == '#')
			continue;
		if (memchr(p, '\0', n))
			lerr(&m, line, "NUL byte in baseline");
		else if (n > 5 && !memcmp(p, "apic=", 5))
			on_entry(b, &m, line, p, n);
		else
			on_header(b, &m, line, p, n);
	}
	free(buf);
	if (b->n) /* b->e is still NULL for a baseline without entries */
		qsort(b->e, b->n, sizeof(*b->e), cmp_bl);
	for (size_t i = 1; i < b->n && m.errors < MAX_ERRORS_PER_FILE; i++)
		if (!cmp_bl(&b->e[i - 1], &b->e[i]))
			lerr(&m, b->e[i].line > b->e[i - 1].line ? b->e[i].line
								 : b->e[i - 1].line,
			     "duplicate entry apic=%" PRIu32 " op=%s", b->e[i].apic,
			     op_name[b->e[i].op]);
	return m.errors ? 1 : 0;
}
